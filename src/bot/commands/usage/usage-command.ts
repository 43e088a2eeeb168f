import {
  AttachmentBuilder,
  EmbedBuilder,
  InteractionContextType,
  SlashCommandBuilder,
  type APIEmbedField,
} from 'discord.js';
import type { ScopeSettings } from '../../../core/settings.ts';
import type { Database } from '../../../db/database.ts';
import { characterUsage, usageSummary } from '../../../db/usage-repository.ts';
import type { Locale } from '../../i18n/locale.ts';
import { holdsPermission } from '../command-access.ts';
import { respond } from '../command-replies.ts';
import { commandText } from '../command-text.ts';
import { currentSettings } from '../config/settings-writes.ts';
import type { SlashCommand } from '../slash-command.ts';
import { leftText, spendText } from './budget-text.ts';
import { buildUsageReport, reportDays, USAGE_DAYS, type UsageReport } from './usage-report.ts';

/** The attachment's name, which the embed's image points at. */
export const USAGE_CHART_FILE = 'usage.png';
/** Lines per ranking in the embed (a field holds 1,024 characters). */
const RANKED_LINES = 10;

const text = commandText({
  en: {
    description: 'What the AI cost here: today and the last 30 days, in tokens and money',
    'title.server': 'AI usage in this server',
    'title.member': 'Your AI usage here',
    today: 'Today (UTC)',
    period: 'Last 30 days',
    turns: '{count} replies',
    'left.server': 'Server budget today: {left}',
    'left.member': 'Your budget today: {left}',
    models: 'By model (30 days)',
    members: 'By member (30 days)',
    characters: 'By character (30 days)',
    unpriced: 'no price listed: counted as $0',
    heard: '{seconds} s of voice messages heard',
    spoken: '{characters} characters spoken',
    summaries: 'channel summaries',
    more: '…and {count} more',
    none: 'Nothing was spent here in the last 30 days.',
    footer: 'Prices per million tokens from the model catalogue (MODEL_CATALOG can set them).',
  },
  ja: {
    description: 'ここでのAIの使用量：今日と過去30日、トークンと金額',
    'title.server': 'このサーバーのAI使用量',
    'title.member': 'ここでのあなたのAI使用量',
    today: '今日（UTC）',
    period: '過去30日',
    turns: '返信 {count} 件',
    'left.server': 'サーバーの今日の予算：{left}',
    'left.member': 'あなたの今日の予算：{left}',
    models: 'モデル別（30日）',
    members: 'メンバー別（30日）',
    characters: 'キャラクター別（30日）',
    unpriced: '価格の登録なし：$0 として計算',
    heard: 'ボイスメッセージ {seconds} 秒を聞き取り',
    spoken: '{characters} 文字を読み上げ',
    summaries: 'チャンネルの要約',
    more: '…ほか {count} 件',
    none: '過去30日、ここでの使用はありません。',
    footer: '100万トークンあたりの価格はモデルカタログによります（MODEL_CATALOG で設定できます）。',
  },
});

/** Whose usage a report covers: the whole scope, or one member's turns in it. */
export interface UsageView {
  scopeId: string;
  memberId?: string | undefined;
}

/**
 * The last USAGE_DAYS UTC days of a scope's (or a member's) usage, summed by the database per
 * day and model and per member.
 */
export async function loadUsageReport(
  db: Database,
  view: UsageView,
  now: number,
): Promise<UsageReport> {
  const days = reportDays(now, USAGE_DAYS);
  const query = {
    scopeId: view.scopeId,
    memberId: view.memberId,
    fromDay: days[0] ?? '',
    toDay: days.at(-1) ?? '',
  };
  const [summary, characters] = await Promise.all([
    usageSummary(db, query),
    // Characters speak for the whole server: a member's own view has none of its own.
    view.memberId === undefined ? characterUsage(db, query) : Promise.resolve([]),
  ]);
  const report = buildUsageReport(summary.byDayAndModel, days, {
    members: summary.byMember.slice(0, RANKED_LINES),
    count: summary.byMember.length,
  });
  return { ...report, byCharacter: characters };
}

/**
 * `/usage`: today and the last 30 days in tokens and money, by model and (for managers) by
 * member, with what is left of today's budgets, and a chart of the days by model. Members with
 * Manage Server (and anyone in our DMs, which are their own) see the whole server; everyone
 * else sees their own turns.
 */
export function usageCommand(): SlashCommand {
  const builder = new SlashCommandBuilder()
    .setName('usage')
    .setContexts(InteractionContextType.Guild, InteractionContextType.BotDM);
  return {
    definition: text.describe(builder, 'description').toJSON(),
    category: 'info',
    async execute(interaction, context) {
      const settings = await currentSettings(interaction, context);
      const whole = holdsPermission(interaction, context, 'ManageGuild');
      const view = { scopeId: context.scope.id, memberId: whole ? undefined : interaction.user.id };
      const report = await loadUsageReport(context.services.db, view, context.services.clock.now());
      if (report.period.tokens === 0 && report.period.cost === 0) {
        await respond(interaction, text.get(context.locale, 'none'));
        return;
      }
      const { renderUsageChart } = await import('./usage-chart.ts');
      const png = await renderUsageChart({
        labels: report.days.map((day) => day.slice(5)),
        series: report.series,
        unit: report.period.cost > 0 ? 'cost' : 'tokens',
        title: report.period.cost > 0 ? 'USD per day (UTC)' : 'Tokens per day (UTC)',
        otherLabel: 'other',
      });
      const embed = usageEmbed({ locale: context.locale, report, settings, whole }).setImage(
        `attachment://${USAGE_CHART_FILE}`,
      );
      context.logger.info({ whole, rows: report.byModel.length }, 'usage shown');
      await respond(interaction, {
        embeds: [embed],
        files: [new AttachmentBuilder(png, { name: USAGE_CHART_FILE })],
      });
    },
  };
}

function usageEmbed(options: {
  locale: Locale;
  report: UsageReport;
  settings: ScopeSettings;
  whole: boolean;
}): EmbedBuilder {
  const { locale, report, whole } = options;
  const fields: APIEmbedField[] = [
    { name: text.get(locale, 'today'), value: todayValue(options), inline: true },
    {
      name: text.get(locale, 'period'),
      value: `${spendText(locale, report.period)}\n${text.get(locale, 'turns', { count: report.period.turns })}`,
      inline: true,
    },
    { name: text.get(locale, 'models'), value: modelLines(locale, report), inline: false },
  ];
  if (whole) {
    fields.push({
      name: text.get(locale, 'members'),
      value: memberLines(locale, report),
      inline: false,
    });
  }
  if (whole && report.byCharacter.length > 0) {
    fields.push({
      name: text.get(locale, 'characters'),
      value: ranking(
        locale,
        report.byCharacter.map(
          (character) =>
            `**${character.name}** — ${spendText(locale, character)}\n-# ${text.get(locale, 'turns', { count: character.turns })}`,
        ),
      ),
      inline: false,
    });
  }
  return new EmbedBuilder()
    .setTitle(text.get(locale, whole ? 'title.server' : 'title.member'))
    .addFields(fields)
    .setFooter({ text: text.get(locale, 'footer') });
}

/** Today's spending and what is left of the budgets that apply to the viewer. */
function todayValue(options: {
  locale: Locale;
  report: UsageReport;
  settings: ScopeSettings;
  whole: boolean;
}): string {
  const { locale, report, settings, whole } = options;
  const lines = [
    spendText(locale, report.today),
    text.get(locale, 'turns', { count: report.today.turns }),
  ];
  const member = { tokens: settings.memberDailyTokenBudget, cost: settings.memberDailyCostBudget };
  const server = { tokens: settings.dailyTokenBudget, cost: settings.dailyCostBudget };
  if (whole)
    lines.push(text.get(locale, 'left.server', { left: leftText(locale, server, report.today) }));
  else
    lines.push(text.get(locale, 'left.member', { left: leftText(locale, member, report.today) }));
  return lines.join('\n');
}

function modelLines(locale: Locale, report: UsageReport): string {
  return ranking(
    locale,
    report.byModel.map(({ model, totals }) => {
      const speech = totals.speechSeconds > 0 || totals.speechCharacters > 0;
      const unpriced = totals.cost === 0 && (totals.tokens > 0 || speech);
      const notes = [
        ...(totals.speechSeconds > 0
          ? [text.get(locale, 'heard', { seconds: Math.round(totals.speechSeconds) })]
          : []),
        ...(totals.speechCharacters > 0
          ? [text.get(locale, 'spoken', { characters: totals.speechCharacters })]
          : []),
        ...(unpriced ? [text.get(locale, 'unpriced')] : []),
      ];
      const note = notes.length > 0 ? ` (${notes.join('; ')})` : '';
      return `\`${model}\` — ${spendText(locale, totals)}${note}`;
    }),
  );
}

function memberLines(locale: Locale, report: UsageReport): string {
  return ranking(
    locale,
    report.byMember.map(({ memberId, totals }) => {
      const who = memberId === '' ? text.get(locale, 'summaries') : `<@${memberId}>`;
      return `${who} — ${spendText(locale, totals)}`;
    }),
    report.memberCount,
  );
}

/** Up to RANKED_LINES lines, and how many more there are of `total`. */
function ranking(locale: Locale, lines: readonly string[], total = lines.length): string {
  const shown = lines.slice(0, RANKED_LINES);
  if (total > shown.length) shown.push(text.get(locale, 'more', { count: total - shown.length }));
  return shown.join('\n').slice(0, 1_024);
}
