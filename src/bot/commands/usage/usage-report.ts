import type { Spend, UsageSums } from '../../../db/usage-repository.ts';

/** Days `/usage` looks back over, today included. */
export const USAGE_DAYS = 30;
/** Models drawn as their own series; the rest are summed as one. */
export const CHART_MODELS = 5;
/** The series of the models past CHART_MODELS. */
export const OTHER_MODELS = '';

const DAY_MS = 86_400_000;

export interface UsageTotals extends Spend {
  turns: number;
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
  /** Speech models: seconds of voice messages heard, characters of replies spoken. */
  speechSeconds: number;
  speechCharacters: number;
}

/** A model's spending per day, oldest first, for the chart. */
export interface DailySeries {
  /** The model, or OTHER_MODELS for the rest. */
  model: string;
  tokens: number[];
  cost: number[];
}

export interface UsageReport {
  /** The UTC days covered, oldest first (`YYYY-MM-DD`). */
  days: string[];
  today: UsageTotals;
  period: UsageTotals;
  /** The members who spent most, most first (money, then tokens). */
  byMember: Array<{ memberId: string; totals: UsageTotals }>;
  /** How many members spent anything (byMember may list only the first of them). */
  memberCount: number;
  byModel: Array<{ model: string; totals: UsageTotals }>;
  series: DailySeries[];
  /** What each character's turns spent, most first (the whole server's view only). */
  byCharacter: Array<Spend & { name: string; turns: number }>;
}

/** The UTC days of the report ending on the day of `now`, oldest first. */
export function reportDays(now: number, count = USAGE_DAYS): string[] {
  const today = Math.floor(now / DAY_MS);
  return Array.from({ length: count }, (_, index) =>
    new Date((today - count + 1 + index) * DAY_MS).toISOString().slice(0, 10),
  );
}

/** A day's spending on one model, as the database sums it. */
export type DayModelUsage = UsageSums & { day: string; model: string };

/**
 * Sums per-day, per-model usage into what `/usage` shows: today, the period, per model, and a
 * daily series per model; `members` (the top spenders, summed by the database) pass through.
 */
export function buildUsageReport(
  rows: readonly DayModelUsage[],
  days: readonly string[],
  members: { members: ReadonlyArray<UsageSums & { memberId: string }>; count: number } = {
    members: [],
    count: 0,
  },
): UsageReport {
  const dayIndex = new Map(days.map((day, index) => [day, index]));
  const todayKey = days.at(-1);
  const today = emptyTotals();
  const period = emptyTotals();
  const models = new Map<string, { totals: UsageTotals; tokens: number[]; cost: number[] }>();
  for (const row of rows) {
    const index = dayIndex.get(row.day);
    if (index === undefined) continue;
    add(period, row);
    if (row.day === todayKey) add(today, row);
    let model = models.get(row.model);
    if (model === undefined) {
      model = { totals: emptyTotals(), tokens: days.map(() => 0), cost: days.map(() => 0) };
      models.set(row.model, model);
    }
    add(model.totals, row);
    model.tokens[index] = (model.tokens[index] ?? 0) + row.inputTokens + row.outputTokens;
    model.cost[index] = (model.cost[index] ?? 0) + row.cost;
  }
  const byModel = ranked([...models].map(([model, entry]) => ({ model, totals: entry.totals })));
  return {
    days: [...days],
    today,
    period,
    byMember: members.members.map(({ memberId, ...sums }) => {
      const totals = emptyTotals();
      add(totals, sums);
      return { memberId, totals };
    }),
    memberCount: members.count,
    byModel,
    series: seriesOf(byModel, models, days.length),
    byCharacter: [],
  };
}

function seriesOf(
  byModel: ReadonlyArray<{ model: string }>,
  models: ReadonlyMap<string, { tokens: number[]; cost: number[] }>,
  length: number,
): DailySeries[] {
  const series: DailySeries[] = [];
  const other: DailySeries = {
    model: OTHER_MODELS,
    tokens: Array<number>(length).fill(0),
    cost: Array<number>(length).fill(0),
  };
  for (const [rank, { model }] of byModel.entries()) {
    const entry = models.get(model);
    if (entry === undefined) continue;
    if (rank < CHART_MODELS) {
      series.push({ model, tokens: entry.tokens, cost: entry.cost });
      continue;
    }
    for (let day = 0; day < length; day += 1) {
      other.tokens[day] = (other.tokens[day] ?? 0) + (entry.tokens[day] ?? 0);
      other.cost[day] = (other.cost[day] ?? 0) + (entry.cost[day] ?? 0);
    }
  }
  if (byModel.length > CHART_MODELS) series.push(other);
  return series;
}

function emptyTotals(): UsageTotals {
  return {
    turns: 0,
    inputTokens: 0,
    cachedInputTokens: 0,
    outputTokens: 0,
    tokens: 0,
    cost: 0,
    speechSeconds: 0,
    speechCharacters: 0,
  };
}

function add(totals: UsageTotals, row: UsageSums): void {
  totals.turns += row.turns;
  totals.inputTokens += row.inputTokens;
  totals.cachedInputTokens += row.cachedInputTokens;
  totals.outputTokens += row.outputTokens;
  totals.tokens += row.inputTokens + row.outputTokens;
  totals.cost += row.cost;
  totals.speechSeconds += row.speechSeconds;
  totals.speechCharacters += row.speechCharacters;
}

function ranked<T extends { totals: UsageTotals }>(entries: T[]): T[] {
  return entries.sort(
    (left, right) =>
      right.totals.cost - left.totals.cost || right.totals.tokens - left.totals.tokens,
  );
}
