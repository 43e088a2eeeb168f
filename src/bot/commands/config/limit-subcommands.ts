import type { QueuePolicy } from '../../../core/settings.ts';
import type { SettingsPatch } from '../../../db/scope-settings-repository.ts';
import { nanoUsdOf } from '../../../providers/model-price.ts';
import { CommandRefusal } from '../../i18n/member-text.ts';
import { commandText } from '../command-text.ts';
import { limitText } from '../usage/budget-text.ts';
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
/** A million dollars a day is as good as unlimited, and stays exact in nano-dollars. */
const MAX_DAILY_DOLLARS = 1_000_000;

const text = commandText({
  en: {
    'queue.description': 'What happens to messages that arrive while I am answering',
    'queue.policy': 'Coalesce them into one answer, or answer them one by one',
    'queue.depth': 'How many messages may wait per channel (1–20)',
    'queue.done': 'Queue: **{policy}**, up to **{depth}** waiting per channel.',
    'ratelimit.description': 'How many replies a member may ask for per minute',
    'ratelimit.turns': 'Replies per member per minute (1–120)',
    'ratelimit.done': 'Each member may get up to **{turns}** replies per minute.',
    'budget.description': 'Daily budgets in tokens or dollars, for the server and per member',
    'budget.tokens': 'Server: input + output tokens per UTC day; 0 turns it off',
    'budget.dollars': 'Server: US dollars per UTC day, at the model prices; 0 turns it off',
    'budget.member_tokens': 'Each member: tokens per UTC day; 0 turns it off',
    'budget.member_dollars': 'Each member: US dollars per UTC day; 0 turns it off',
    'budget.done':
      'Daily budgets (reset at 00:00 UTC) — server: **{server}**; each member: **{member}**. See `/usage`.',
    'budget.missing': 'Give at least one budget: tokens, dollars, member_tokens or member_dollars.',
  },
  ja: {
    'queue.description': '返信中に届いたメッセージの扱い',
    'queue.policy': '1つの返信にまとめるか、1つずつ返信するか',
    'queue.depth': 'チャンネルごとに待てるメッセージ数（1〜20）',
    'queue.done': 'キュー：**{policy}**、チャンネルごとに最大 **{depth}** 件待機。',
    'ratelimit.description': 'メンバー1人が1分間に求められる返信の数',
    'ratelimit.turns': 'メンバーごとの1分あたりの返信数（1〜120）',
    'ratelimit.done': '各メンバーは1分あたり最大 **{turns}** 回まで返信を受けられます。',
    'budget.description': 'サーバー全体とメンバーごとの1日の予算（トークンまたはドル）',
    'budget.tokens': 'サーバー：UTCの1日あたりの入力＋出力トークン。0で予算なし',
    'budget.dollars': 'サーバー：UTCの1日あたりの米ドル（モデル価格で計算）。0で予算なし',
    'budget.member_tokens': 'メンバーごと：UTCの1日あたりのトークン。0で予算なし',
    'budget.member_dollars': 'メンバーごと：UTCの1日あたりの米ドル。0で予算なし',
    'budget.done':
      '1日の予算（UTC 0:00 にリセット）— サーバー：**{server}**、メンバーごと：**{member}**。`/usage` で確認できます。',
    'budget.missing':
      '予算を1つ以上指定してください：tokens、dollars、member_tokens、member_dollars。',
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

/** The budget options: each sets one column, 0 clears it, an option not given keeps it. */
const BUDGET_OPTIONS = [
  { name: 'tokens', column: 'dailyTokenBudget', money: false },
  { name: 'dollars', column: 'dailyCostBudget', money: true },
  { name: 'member_tokens', column: 'memberDailyTokenBudget', money: false },
  { name: 'member_dollars', column: 'memberDailyCostBudget', money: true },
] as const;

export const budgetSubcommand: ConfigSubcommand = {
  name: 'budget',
  define: (builder) =>
    builder.addSubcommand((sub) => {
      text.describe(sub.setName('budget'), 'budget.description');
      for (const option of BUDGET_OPTIONS) {
        const key = `budget.${option.name}` as const;
        if (option.money) {
          sub.addNumberOption((number) =>
            text
              .describe(number.setName(option.name), key)
              .setMinValue(0)
              .setMaxValue(MAX_DAILY_DOLLARS),
          );
        } else {
          sub.addIntegerOption((integer) =>
            text
              .describe(integer.setName(option.name), key)
              .setMinValue(0)
              .setMaxValue(MAX_DAILY_TOKENS),
          );
        }
      }
      return sub;
    }),
  async execute(interaction, context) {
    const patch: SettingsPatch = {};
    for (const option of BUDGET_OPTIONS) {
      const value = option.money
        ? interaction.options.getNumber(option.name)
        : interaction.options.getInteger(option.name);
      if (value === null) continue;
      const stored = option.money ? nanoUsdOf(value) : value;
      patch[option.column] = stored === 0 ? undefined : stored;
    }
    if (Object.keys(patch).length === 0) throw new CommandRefusal(text.refusal('budget.missing'));
    const settings = await saveSettings(interaction, context, patch);
    const { locale } = context;
    await respond(
      interaction,
      text.get(locale, 'budget.done', {
        server: limitText(locale, {
          tokens: settings.dailyTokenBudget,
          cost: settings.dailyCostBudget,
        }),
        member: limitText(locale, {
          tokens: settings.memberDailyTokenBudget,
          cost: settings.memberDailyCostBudget,
        }),
      }),
    );
  },
};
