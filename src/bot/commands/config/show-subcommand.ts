import { EmbedBuilder } from 'discord.js';
import {
  applyChannelOverrides,
  channelSettingLevels,
  noChannelOverrides,
  type ChannelOverrides,
  type SettingLevel,
} from '../../../core/channel-settings.ts';
import { defaultScopeSettings, type ScopeSettings } from '../../../core/settings.ts';
import { loadChannelOverrides } from '../../../db/channel-settings-repository.ts';
import { dailyUsage } from '../../../db/usage-repository.ts';
import {
  ALLOW_USER_MENTIONS_FLAG,
  ANSWER_BOTS_FLAG,
  isSwitchOn,
} from '../../settings/reply-switches.ts';
import type { Locale } from '../../i18n/locale.ts';
import { DEFAULT_PERSONA_NAME } from '../../context/persona.ts';
import { commandText } from '../command-text.ts';
import { respond } from '../command-replies.ts';
import type { CommandContext } from '../slash-command.ts';
import type { ConfigSubcommand } from './config-subcommand.ts';
import { humanizerLabel, languageLabel, providerLabel, settingLabels } from './setting-labels.ts';
import { currentSettings } from './settings-writes.ts';
import { describeSwitches } from './tools-subcommand.ts';

/** Discord's limit for an embed field's value. */
const FIELD_VALUE_LIMIT = 1_024;
const PERSONA_PREVIEW_LENGTH = 200;

const text = commandText({
  en: {
    description: 'Show the settings in effect here',
    'title.guild': 'Settings for this server',
    'title.dm': 'Settings for our DMs',
    provider: 'Provider',
    model: 'Model',
    key: 'API key',
    'key.scope': 'Set here (stored encrypted)',
    'key.operator': 'Not set: the bot operator’s key is used',
    'key.none': 'Not needed: the operator’s own model server',
    'key.missing': 'Not set, and there is no other key: set one with `/config apikey set`',
    persona: 'Persona',
    humanizer: 'Humanizer',
    temperature: 'Temperature',
    'temperature.default': 'the model’s default',
    language: 'Language',
    delivery: 'Delivery',
    queue: 'Queue',
    'queue.value': '{policy}; up to {depth} waiting per channel',
    ratelimit: 'Rate limit',
    'ratelimit.value': '{turns} replies per member per minute',
    budget: 'Daily budget',
    'budget.unlimited': 'unlimited; {used} tokens used today (UTC)',
    'budget.value': '{budget} tokens; {used} used today (UTC)',
    tools: 'Tools',
    'tools.none': 'none installed',
    triggers: 'Trigger words',
    autoreply: 'Auto-reply',
    'autoreply.every': 'one message in {n}, in each channel',
    timezone: 'Time zone',
    answerbots: 'Answer other bots',
    mentions: 'Replies may ping members',
    levels: 'In parentheses: where a value comes from (this channel, the server, or the default).',
    none: 'none',
  },
  ja: {
    description: 'ここで有効な設定を表示',
    'title.guild': 'このサーバーの設定',
    'title.dm': 'このDMの設定',
    provider: 'プロバイダー',
    model: 'モデル',
    key: 'APIキー',
    'key.scope': 'ここで設定済み（暗号化して保存）',
    'key.operator': '未設定：ボット運営者のキーを使用',
    'key.none': '不要：運営者のモデルサーバー',
    'key.missing': '未設定で、他に使えるキーもありません。`/config apikey set` で設定してください',
    persona: 'ペルソナ',
    humanizer: 'ヒューマナイザー',
    temperature: '温度',
    'temperature.default': 'モデルのデフォルト',
    language: '言語',
    delivery: '届け方',
    queue: 'キュー',
    'queue.value': '{policy}、チャンネルごとに最大{depth}件待機',
    ratelimit: 'レート制限',
    'ratelimit.value': 'メンバーごとに1分あたり{turns}回',
    budget: '1日の予算',
    'budget.unlimited': '無制限。今日（UTC）の使用量 {used} トークン',
    'budget.value': '{budget} トークン。今日（UTC）の使用量 {used}',
    tools: 'ツール',
    'tools.none': 'インストールされていません',
    triggers: 'トリガーワード',
    autoreply: '自動返信',
    'autoreply.every': 'すべてのチャンネルで{n}件ごと',
    timezone: 'タイムゾーン',
    answerbots: '他のボットに返信',
    mentions: '返信でメンバーに通知',
    levels: 'かっこ内は値の出どころ（このチャンネル、サーバー、デフォルト）です。',
    none: 'なし',
  },
});

/** `/config show`: what is in effect here, with "default" where the operator's value applies. */
export const showSubcommand: ConfigSubcommand = {
  name: 'show',
  define: (builder) =>
    builder.addSubcommand((sub) => text.describe(sub.setName('show'), 'description')),
  async execute(interaction, context) {
    const server = await currentSettings(interaction, context);
    const { clock, db } = context.services;
    const overrides =
      context.scope.kind === 'guild'
        ? await loadChannelOverrides(db, interaction.channelId)
        : noChannelOverrides(interaction.channelId);
    context.services.channelSettings.store(overrides);
    const used = await dailyUsage(db, context.scope.id, new Date(clock.now()));
    await respond(interaction, {
      embeds: [settingsEmbed(context, { server, overrides, usedToday: used })],
    });
  },
};

function settingsEmbed(
  context: CommandContext,
  options: { server: ScopeSettings; overrides: ChannelOverrides; usedToday: number },
): EmbedBuilder {
  const { locale, services, scope } = context;
  const { server, overrides, usedToday } = options;
  const settings = applyChannelOverrides(server, overrides);
  const levels = channelSettingLevels(server, overrides);
  const defaults = defaultScopeSettings(scope.id);
  const { provider, modelId } = services.providers.target(settings);
  /** A value with where it comes from: this channel, the server (or our DMs), or the default. */
  const levelled = (value: string, level: SettingLevel): string => {
    const key = level === 'server' && scope.kind === 'dm' ? 'dm' : level;
    return `${value} (${settingLabels.get(locale, `level.${key}`)})`;
  };
  const scopeLevel = (isDefault: boolean): SettingLevel => (isDefault ? 'default' : 'server');
  const inherited = (value: string, isDefault: boolean): string =>
    levelled(value, scopeLevel(isDefault));
  const onOff = (on: boolean): string => settingLabels.get(locale, on ? 'on' : 'off');
  const number = (value: number): string => value.toLocaleString(locale);
  const field = (key: Parameters<typeof text.get>[1], value: string, inline = true) => ({
    name: text.get(locale, key),
    value: truncate(value === '' ? text.get(locale, 'none') : value),
    inline,
  });
  const switches = services.tools.switches();
  const fields = [
    field('provider', inherited(providerLabel(locale, provider), settings.provider === undefined)),
    field('model', inherited(`\`${modelId}\``, settings.model === undefined)),
    field('key', keyState(context, settings, provider)),
    field('persona', levelled(personaSummary(settings), levels.persona), false),
    field(
      'humanizer',
      levelled(humanizerLabel(locale, settings.humanizerDegree), levels.humanizer),
    ),
    field(
      'temperature',
      // "The model's default" says where it comes from already.
      settings.temperature === undefined
        ? text.get(locale, 'temperature.default')
        : levelled(String(settings.temperature), 'server'),
    ),
    field(
      'language',
      inherited(languageLabel(locale, settings.language), settings.language === undefined),
    ),
    field(
      'timezone',
      inherited(`\`${settings.timezone ?? 'UTC'}\``, settings.timezone === undefined),
    ),
    field(
      'delivery',
      inherited(
        settingLabels.get(locale, `delivery.${settings.deliveryMode}`),
        settings.deliveryMode === defaults.deliveryMode,
      ),
    ),
    field(
      'queue',
      inherited(
        text.get(locale, 'queue.value', {
          policy: settingLabels.get(locale, `queue.${settings.queuePolicy}`),
          depth: settings.queueDepth,
        }),
        settings.queuePolicy === defaults.queuePolicy &&
          settings.queueDepth === defaults.queueDepth,
      ),
    ),
    field(
      'ratelimit',
      inherited(
        text.get(locale, 'ratelimit.value', { turns: settings.memberTurnsPerMinute }),
        settings.memberTurnsPerMinute === defaults.memberTurnsPerMinute,
      ),
    ),
    field(
      'budget',
      inherited(
        settings.dailyTokenBudget === undefined
          ? text.get(locale, 'budget.unlimited', { used: number(usedToday) })
          : text.get(locale, 'budget.value', {
              budget: number(settings.dailyTokenBudget),
              used: number(usedToday),
            }),
        settings.dailyTokenBudget === undefined,
      ),
    ),
    field(
      'answerbots',
      inherited(
        onOff(isSwitchOn(settings, ANSWER_BOTS_FLAG)),
        settings.featureFlags[ANSWER_BOTS_FLAG] === undefined,
      ),
    ),
    field(
      'mentions',
      inherited(
        onOff(isSwitchOn(settings, ALLOW_USER_MENTIONS_FLAG)),
        settings.featureFlags[ALLOW_USER_MENTIONS_FLAG] === undefined,
      ),
    ),
    field(
      'tools',
      switches.length === 0
        ? text.get(locale, 'tools.none')
        : describeSwitches(locale, switches, settings),
      false,
    ),
  ];
  if (scope.kind === 'guild') {
    fields.push(
      field('triggers', settings.triggerWords.map((word) => `\`${word}\``).join(', '), false),
      field('autoreply', autoReplySummary(locale, settings), false),
    );
  }
  return new EmbedBuilder()
    .setTitle(text.get(locale, scope.kind === 'guild' ? 'title.guild' : 'title.dm'))
    .setFooter({ text: text.get(locale, 'levels') })
    .addFields(fields);
}

function keyState(
  context: CommandContext,
  settings: ScopeSettings,
  provider: Parameters<typeof providerLabel>[1],
): string {
  if (settings.apiKeyCiphertext !== undefined) return text.get(context.locale, 'key.scope');
  const fallback = context.services.providers.fallbackKeySource(provider);
  return text.get(context.locale, fallback === undefined ? 'key.missing' : `key.${fallback}`);
}

function personaSummary(settings: ScopeSettings): string {
  const name = settings.personaName ?? DEFAULT_PERSONA_NAME;
  if (settings.personaInstructions === undefined) return `**${name}**`;
  const instructions = settings.personaInstructions;
  const preview =
    instructions.length > PERSONA_PREVIEW_LENGTH
      ? `${instructions.slice(0, PERSONA_PREVIEW_LENGTH)}…`
      : instructions;
  return `**${name}**: ${preview}`;
}

function autoReplySummary(locale: Locale, settings: ScopeSettings): string {
  const parts = settings.autoReplyChannelIds.map((id) => `<#${id}>`);
  const every = settings.autoReplyEveryN;
  if (every !== undefined && every > 0)
    parts.push(text.get(locale, 'autoreply.every', { n: every }));
  return parts.join(', ');
}

function truncate(value: string): string {
  return value.length <= FIELD_VALUE_LIMIT ? value : `${value.slice(0, FIELD_VALUE_LIMIT - 1)}…`;
}
