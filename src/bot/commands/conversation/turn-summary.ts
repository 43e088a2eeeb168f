import { z } from 'zod';
import type { TurnStatus } from '../../../db/schema.ts';
import type { Locale } from '../../i18n/locale.ts';
import { commandText } from '../command-text.ts';

/** What `/history` reads of a turn's `metrics` jsonb (stream/turn-metrics.ts writes it). */
const storedMetrics = z.object({
  inputTokens: z.number(),
  outputTokens: z.number(),
  timeToFirstTokenMs: z.number().nullable(),
  outputTokensPerSecond: z.number().nullable(),
  durationMs: z.number(),
  tools: z.array(z.object({ name: z.string(), outcome: z.string() })).catch([]),
});

export type StoredMetrics = z.infer<typeof storedMetrics>;

/** The turn's metrics, or undefined for a turn still streaming, failed early, or written by an older version. */
export function readMetrics(metrics: unknown): StoredMetrics | undefined {
  const parsed = storedMetrics.safeParse(metrics);
  return parsed.success ? parsed.data : undefined;
}

export interface TurnSummaryInput {
  status: TurnStatus;
  /** Set when one of the bot's characters spoke the reply (`authorName` is then its name). */
  characterId?: string | null;
  authorName?: string | null;
  content: string;
  createdAt: Date;
  metrics: unknown;
}

const text = commandText({
  en: {
    streaming: '✍️ streaming',
    complete: '✅ complete',
    stopped: '⏹️ stopped',
    failed: '❌ failed',
    tokens: 'Tokens: **{input}** in · **{output}** out',
    speed: 'First token **{ttft}** · **{rate}** tokens/s · {duration} in all',
    tools: 'Tools: {tools}',
    noTools: 'Tools: none',
    noMetrics: 'No metrics recorded.',
    empty: '(no text)',
  },
  ja: {
    streaming: '✍️ 生成中',
    complete: '✅ 完了',
    stopped: '⏹️ 停止',
    failed: '❌ 失敗',
    tokens: 'トークン：入力 **{input}** · 出力 **{output}**',
    speed: '最初のトークンまで **{ttft}** · **{rate}** トークン/秒 · 全体 {duration}',
    tools: 'ツール：{tools}',
    noTools: 'ツール：なし',
    noMetrics: 'メトリクスの記録はありません。',
    empty: '（テキストなし）',
  },
});

const EXCERPT_CHARACTERS = 80;
/** Distinct tools named per turn: the field stays far below Discord's 1024 characters. */
const MAX_TOOLS_SHOWN = 5;

/** One embed field per assistant turn: when, status, tokens, speed, tools and a short excerpt. */
export function summarizeTurn(
  turn: TurnSummaryInput,
  locale: Locale,
): { name: string; value: string } {
  const metrics = readMetrics(turn.metrics);
  const lines = [`<t:${Math.floor(turn.createdAt.getTime() / 1000)}:R>`];
  if (metrics === undefined) {
    lines.push(text.get(locale, 'noMetrics'));
  } else {
    const number = new Intl.NumberFormat(locale);
    lines.push(
      text.get(locale, 'tokens', {
        input: number.format(metrics.inputTokens),
        output: number.format(metrics.outputTokens),
      }),
      text.get(locale, 'speed', {
        ttft: metrics.timeToFirstTokenMs === null ? '—' : duration(metrics.timeToFirstTokenMs),
        rate:
          metrics.outputTokensPerSecond === null
            ? '—'
            : number.format(metrics.outputTokensPerSecond),
        duration: duration(metrics.durationMs),
      }),
      metrics.tools.length === 0
        ? text.get(locale, 'noTools')
        : text.get(locale, 'tools', { tools: toolList(metrics.tools) }),
    );
  }
  lines.push(`> ${excerpt(turn.content) || text.get(locale, 'empty')}`);
  const status = text.get(locale, turn.status);
  const speaker = isCharacterTurn(turn) ? turn.authorName : undefined;
  return {
    name: speaker === undefined || speaker === null ? status : `${status} · ${speaker}`,
    value: lines.join('\n'),
  };
}

/** A reply one of the bot's characters spoke. */
export function isCharacterTurn(turn: Pick<TurnSummaryInput, 'characterId'>): boolean {
  return turn.characterId !== undefined && turn.characterId !== null;
}

/** `current_time` ×2, `search__web` (1 not ok): names in code so markdown in them is inert. */
function toolList(tools: StoredMetrics['tools']): string {
  const counts = new Map<string, { calls: number; failed: number }>();
  for (const tool of tools) {
    const count = counts.get(tool.name) ?? { calls: 0, failed: 0 };
    count.calls += 1;
    if (tool.outcome !== 'ok') count.failed += 1;
    counts.set(tool.name, count);
  }
  const shown = [...counts].slice(0, MAX_TOOLS_SHOWN);
  const more = counts.size - shown.length;
  const names = shown
    .map(([name, count]) => {
      const times = count.calls > 1 ? ` ×${count.calls}` : '';
      const failed = count.failed > 0 ? ` (${count.failed} ✗)` : '';
      return `\`${name.replace(/`/g, "'")}\`${times}${failed}`;
    })
    .join(', ');
  return more > 0 ? `${names} +${more}` : names;
}

function duration(milliseconds: number): string {
  return milliseconds < 1000
    ? `${Math.round(milliseconds)} ms`
    : `${(milliseconds / 1000).toFixed(1)} s`;
}

/** One line of the reply, without markdown that could break the embed's layout. */
function excerpt(content: string): string {
  const line = content
    .replace(/```[\s\S]*?(```|$)/g, ' [code] ')
    .replace(/\s+/g, ' ')
    .trim();
  const cut = [...line];
  const short =
    cut.length > EXCERPT_CHARACTERS ? `${cut.slice(0, EXCERPT_CHARACTERS).join('')}…` : line;
  return short.replace(/[*_~`|>]/g, (character) => `\\${character}`);
}
