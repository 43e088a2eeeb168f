import type { QueuePolicy } from '../../../core/settings.ts';
import { commandText } from '../command-text.ts';
import { respond } from '../command-replies.ts';
import type { ConfigSubcommand } from './config-subcommand.ts';
import { QUEUE_POLICIES, settingLabels } from './setting-labels.ts';
import { saveSettings } from './settings-writes.ts';

/** Messages waiting per channel while a reply streams. */
const MAX_QUEUE_DEPTH = 20;
/** Turns per member per minute: more than one every half second is no conversation. */
const MAX_TURNS_PER_MINUTE = 120;
/** The column is a 32-bit integer; two billion tokens a day is as good as unlimited. */
const MAX_DAILY_TOKENS = 2_000_000_000;

const text = commandText({
  en: {
    'queue.description': 'What happens to messages that arrive while I am answering',
    'queue.policy': 'Coalesce them into one answer, or answer them one by one',
    'queue.depth': 'How many messages may wait per channel (1–20)',
    'queue.done': 'Queue: **{policy}**, up to **{depth}** waiting per channel.',
    'ratelimit.description': 'How many replies a member may ask for per minute',
    'ratelimit.turns': 'Replies per member per minute (1–120)',
    'ratelimit.done': 'Each member may get up to **{turns}** replies per minute.',
    'budget.description': 'Daily token budget for this server (0 = unlimited)',
    'budget.tokens': 'Input + output tokens per UTC day; 0 turns the budget off',
    'budget.done': 'Daily budget: **{tokens}** tokens (resets at 00:00 UTC).',
    'budget.cleared': 'Daily budget: **unlimited**.',
  },
  ja: {
    'queue.description': '返信中に届いたメッセージの扱い',
    'queue.policy': '1つの返信にまとめるか、1つずつ返信するか',
    'queue.depth': 'チャンネルごとに待てるメッセージ数（1〜20）',
    'queue.done': 'キュー：**{policy}**、チャンネルごとに最大 **{depth}** 件待機。',
    'ratelimit.description': 'メンバー1人が1分間に求められる返信の数',
    'ratelimit.turns': 'メンバーごとの1分あたりの返信数（1〜120）',
    'ratelimit.done': '各メンバーは1分あたり最大 **{turns}** 回まで返信を受けられます。',
    'budget.description': 'このサーバーの1日のトークン予算（0 = 無制限）',
    'budget.tokens': 'UTCの1日あたりの入力＋出力トークン。0で予算なし',
    'budget.done': '1日の予算：**{tokens}** トークン（UTC 0:00 にリセット）。',
    'budget.cleared': '1日の予算：**無制限**。',
  },
});

export const queueSubcommand: ConfigSubcommand = {
  name: 'queue',
  define: (builder) =>
    builder.addSubcommand((sub) =>
      text
        .describe(sub.setName('queue'), 'queue.description')
        .addStringOption((option) =>
          text
            .describe(option.setName('policy'), 'queue.policy')
            .setRequired(true)
            .addChoices(
              ...QUEUE_POLICIES.map((policy) => settingLabels.choice(`queue.${policy}`, policy)),
            ),
        )
        .addIntegerOption((option) =>
          text
            .describe(option.setName('depth'), 'queue.depth')
            .setMinValue(1)
            .setMaxValue(MAX_QUEUE_DEPTH),
        ),
    ),
  async execute(interaction, context) {
    const policy = interaction.options.getString('policy', true) as QueuePolicy;
    const depth = interaction.options.getInteger('depth') ?? undefined;
    const settings = await saveSettings(interaction, context, {
      queuePolicy: policy,
      // Each key of a patch is a column written: a depth not given keeps the stored one.
      ...(depth === undefined ? {} : { queueDepth: depth }),
    });
    await respond(
      interaction,
      text.get(context.locale, 'queue.done', {
        policy: settingLabels.get(context.locale, `queue.${policy}`),
        depth: settings.queueDepth,
      }),
    );
  },
};

export const rateLimitSubcommand: ConfigSubcommand = {
  name: 'ratelimit',
  define: (builder) =>
    builder.addSubcommand((sub) =>
      text
        .describe(sub.setName('ratelimit'), 'ratelimit.description')
        .addIntegerOption((option) =>
          text
            .describe(option.setName('turns'), 'ratelimit.turns')
            .setRequired(true)
            .setMinValue(1)
            .setMaxValue(MAX_TURNS_PER_MINUTE),
        ),
    ),
  async execute(interaction, context) {
    const turns = interaction.options.getInteger('turns', true);
    await saveSettings(interaction, context, { memberTurnsPerMinute: turns });
    await respond(interaction, text.get(context.locale, 'ratelimit.done', { turns }));
  },
};

export const budgetSubcommand: ConfigSubcommand = {
  name: 'budget',
  define: (builder) =>
    builder.addSubcommand((sub) =>
      text
        .describe(sub.setName('budget'), 'budget.description')
        .addIntegerOption((option) =>
          text
            .describe(option.setName('tokens'), 'budget.tokens')
            .setRequired(true)
            .setMinValue(0)
            .setMaxValue(MAX_DAILY_TOKENS),
        ),
    ),
  async execute(interaction, context) {
    const tokens = interaction.options.getInteger('tokens', true);
    await saveSettings(interaction, context, {
      dailyTokenBudget: tokens === 0 ? undefined : tokens,
    });
    await respond(
      interaction,
      tokens === 0
        ? text.get(context.locale, 'budget.cleared')
        : text.get(context.locale, 'budget.done', {
            tokens: tokens.toLocaleString(context.locale),
          }),
    );
  },
};
