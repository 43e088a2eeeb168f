import { EmbedBuilder, type APIEmbedField } from 'discord.js';
import {
  applyChannelOverrides,
  channelSettingLevels,
  noChannelOverrides,
  type ChannelOverrides,
  type SettingLevel,
} from '../../../core/channel-settings.ts';
import { defaultScopeSettings, type ScopeSettings } from '../../../core/settings.ts';
import { loadChannelOverrides } from '../../../db/channel-settings-repository.ts';
import { dailySpend, type Spend } from '../../../db/usage-repository.ts';
import {
  ALLOW_USER_MENTIONS_FLAG,
  ANSWER_BOTS_FLAG,
  isSwitchOn,
  type ReplySwitch,
} from '../../settings/reply-switches.ts';
import type { Locale } from '../../i18n/locale.ts';
import { DEFAULT_PERSONA_NAME } from '../../context/persona.ts';
import { commandText } from '../command-text.ts';
import { limitText, spendText } from '../usage/budget-text.ts';
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
    'budget.value':
      'Spent today (UTC): {spent}\nServer: {server}\nEach member: {member}\nDetails and a chart: `/usage`',
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
    'budget.value':
      '今日（UTC）の使用：{spent}\nサーバー：{server}\nメンバーごと：{member}\n詳細とグラフ：`/usage`',
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
    const used = await dailySpend(db, context.scope.id, new Date(clock.now()));
    await respond(interaction, {
      embeds: [settingsEmbed(context, { server, overrides, usedToday: used })],
    });
  },
};

function settingsEmbed(
  context: CommandContext,
  options: { server: ScopeSettings; overrides: ChannelOverrides; usedToday: Spend },
): EmbedBuilder {
  const { locale, scope } = context;
  const { server, overrides } = options;
  const settings = applyChannelOverrides(server, overrides);
  const fields = new SettingFields(context, settings);
  return new EmbedBuilder()
    .setTitle(text.get(locale, scope.kind === 'guild' ? 'title.guild' : 'title.dm'))
    .setFooter({ text: text.get(locale, 'levels') })
    .addFields([
      ...modelFields(fields),
      ...voiceFields(fields, channelSettingLevels(server, overrides)),
      ...deliveryFields(fields),
      ...limitFields(fields, options.usedToday),
      ...switchFields(fields),
      ...(scope.kind === 'guild' ? guildFields(fields) : []),
    ]);
}

type TextKey = Parameters<typeof text.get>[1];

/** Writes the embed's fields in the member's language, each value with where it comes from. */
class SettingFields {
  readonly context: CommandContext;
  /** The settings in effect here: the server's, with this channel's overrides applied. */
  readonly settings: ScopeSettings;

  constructor(context: CommandContext, settings: ScopeSettings) {
    this.context = context;
    this.settings = settings;
  }

  field(key: TextKey, value: string, inline = true): APIEmbedField {
    const { locale } = this.context;
    return {
      name: text.get(locale, key),
      value: truncate(value === '' ? text.get(locale, 'none') : value),
      inline,
    };
  }

  /** A value with where it comes from: this channel, the server (or our DMs), or the default. */
  levelled(value: string, level: SettingLevel): string {
    const key = level === 'server' && this.context.scope.kind === 'dm' ? 'dm' : level;
    return `${value} (${settingLabels.get(this.context.locale, `level.${key}`)})`;
  }

  /** A value no channel overrides: the server's own, or the default. */
  inherited(value: string, isDefault: boolean): string {
    return this.levelled(value, isDefault ? 'default' : 'server');
  }

  onOff(on: boolean): string {
    return settingLabels.get(this.context.locale, on ? 'on' : 'off');
  }

  number(value: number): string {
    return value.toLocaleString(this.context.locale);
  }
}

/** Which model answers here, and whose key pays for it. */
function modelFields(fields: SettingFields): APIEmbedField[] {
  const { context, settings } = fields;
  const { provider, modelId } = context.services.providers.target(settings);
  return [
    fields.field(
      'provider',
      fields.inherited(
        providerLabel(context.locale, provider, context.services.providers.serverName(provider)),
        settings.provider === undefined,
      ),
    ),
    fields.field('model', fields.inherited(`\`${modelId}\``, settings.model === undefined)),
    fields.field('key', keyState(context, settings, provider)),
  ];
}

/** How the bot speaks: persona, humanizer, temperature, language and time zone. */
function voiceFields(
  fields: SettingFields,
  levels: ReturnType<typeof channelSettingLevels>,
): APIEmbedField[] {
  const { settings } = fields;
  const { locale } = fields.context;
  return [
    fields.field('persona', fields.levelled(personaSummary(settings), levels.persona), false),
    fields.field(
      'humanizer',
      fields.levelled(humanizerLabel(locale, settings.humanizerDegree), levels.humanizer),
    ),
    fields.field(
      'temperature',
      // "The model's default" says where it comes from already.
      settings.temperature === undefined
        ? text.get(locale, 'temperature.default')
        : fields.levelled(String(settings.temperature), 'server'),
    ),
    fields.field(
      'language',
      fields.inherited(languageLabel(locale, settings.language), settings.language === undefined),
    ),
    fields.field(
      'timezone',
      fields.inherited(`\`${settings.timezone ?? 'UTC'}\``, settings.timezone === undefined),
    ),
  ];
}

/** How replies are delivered, and how triggers wait behind a reply. */
function deliveryFields(fields: SettingFields): APIEmbedField[] {
  const { settings } = fields;
  const { locale, scope } = fields.context;
  const defaults = defaultScopeSettings(scope.id);
  return [
    fields.field(
      'delivery',
      fields.inherited(
        settingLabels.get(locale, `delivery.${settings.deliveryMode}`),
        settings.deliveryMode === defaults.deliveryMode,
      ),
    ),
    fields.field(
      'queue',
      fields.inherited(
        text.get(locale, 'queue.value', {
          policy: settingLabels.get(locale, `queue.${settings.queuePolicy}`),
          depth: settings.queueDepth,
        }),
        settings.queuePolicy === defaults.queuePolicy &&
          settings.queueDepth === defaults.queueDepth,
      ),
    ),
  ];
}

/** What limits the replies: per member per minute, and what may be spent per day. */
function limitFields(fields: SettingFields, usedToday: Spend): APIEmbedField[] {
  const { settings } = fields;
  const { locale, scope } = fields.context;
  const defaults = defaultScopeSettings(scope.id);
  const server = { tokens: settings.dailyTokenBudget, cost: settings.dailyCostBudget };
  const member = { tokens: settings.memberDailyTokenBudget, cost: settings.memberDailyCostBudget };
  const unlimited = [server.tokens, server.cost, member.tokens, member.cost].every(
    (limit) => limit === undefined,
  );
  return [
    fields.field(
      'ratelimit',
      fields.inherited(
        text.get(locale, 'ratelimit.value', { turns: settings.memberTurnsPerMinute }),
        settings.memberTurnsPerMinute === defaults.memberTurnsPerMinute,
      ),
    ),
    fields.field(
      'budget',
      fields.inherited(
        text.get(locale, 'budget.value', {
          spent: spendText(locale, usedToday),
          server: limitText(locale, server),
          member: limitText(locale, member),
        }),
        unlimited,
      ),
      false,
    ),
  ];
}

/** What the bot may do: answer bots, ping members, use tools. */
function switchFields(fields: SettingFields): APIEmbedField[] {
  const { settings } = fields;
  const { locale, services } = fields.context;
  const switches = services.tools.switches();
  const flagField = (key: TextKey, flag: ReplySwitch) =>
    fields.field(
      key,
      fields.inherited(
        fields.onOff(isSwitchOn(settings, flag)),
        settings.featureFlags[flag] === undefined,
      ),
    );
  return [
    flagField('answerbots', ANSWER_BOTS_FLAG),
    flagField('mentions', ALLOW_USER_MENTIONS_FLAG),
    fields.field(
      'tools',
      switches.length === 0
        ? text.get(locale, 'tools.none')
        : describeSwitches(locale, switches, settings),
      false,
    ),
  ];
}

/** When the bot speaks unasked in a server: trigger words and auto-reply. */
function guildFields(fields: SettingFields): APIEmbedField[] {
  const { settings } = fields;
  return [
    fields.field('triggers', settings.triggerWords.map((word) => `\`${word}\``).join(', '), false),
    fields.field('autoreply', autoReplySummary(fields.context.locale, settings), false),
  ];
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
