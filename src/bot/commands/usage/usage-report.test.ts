import { describe, expect, it } from 'vitest';
import {
  buildUsageReport,
  CHART_MODELS,
  OTHER_MODELS,
  reportDays,
  type DayModelUsage,
} from './usage-report.ts';

const NOW = Date.parse('2026-11-26T23:59:00Z');

function usage(day: string, model: string, cost: number): DayModelUsage {
  return {
    day,
    model,
    turns: 1,
    inputTokens: 100,
    cachedInputTokens: 0,
    outputTokens: 10,
    cost,
    speechSeconds: 0,
    speechCharacters: 0,
  };
}

describe('buildUsageReport', () => {
  it('covers the 30 UTC days ending today, oldest first', () => {
    const days = reportDays(NOW);
    expect(days).toHaveLength(30);
    expect(days[0]).toBe('2026-10-28');
    expect(days.at(-1)).toBe('2026-11-26');
  });

  it('sums today apart from the period and ranks models by money', () => {
    const days = reportDays(NOW);
    const report = buildUsageReport(
      [
        usage('2026-11-20', 'cheap', 5),
        usage('2026-11-26', 'dear', 900),
        usage('2026-11-26', 'cheap', 5),
      ],
      days,
    );
    expect(report.today).toMatchObject({ turns: 2, tokens: 220, cost: 905 });
    expect(report.period).toMatchObject({ turns: 3, tokens: 330, cost: 910 });
    expect(report.byModel.map((entry) => entry.model)).toEqual(['dear', 'cheap']);
    expect(report.series[1]?.cost[days.indexOf('2026-11-20')]).toBe(5);
  });

  it('draws the costliest models as their own series and sums the rest as one', () => {
    const days = reportDays(NOW);
    const models = Array.from({ length: CHART_MODELS + 2 }, (_, index) => `m${index}`);
    const report = buildUsageReport(
      models.map((model, index) => usage('2026-11-26', model, 1_000 - index)),
      days,
    );
    expect(report.series.map((series) => series.model)).toEqual([
      ...models.slice(0, CHART_MODELS),
      OTHER_MODELS,
    ]);
    const rest = 1_000 - CHART_MODELS + (1_000 - CHART_MODELS - 1);
    expect(report.series.at(-1)?.cost.at(-1)).toBe(rest);
  });

  it('leaves out rows outside the days', () => {
    const report = buildUsageReport([usage('2026-01-01', 'old', 7)], reportDays(NOW));
    expect(report.period.cost).toBe(0);
    expect(report.byModel).toEqual([]);
  });
});
