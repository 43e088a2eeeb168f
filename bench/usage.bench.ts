/**
 * `/usage` for a busy server: 30 days × 1,000 members (30,000 usage rows over three models) —
 * the rows read from the database, summed into the report, and the chart drawn as a PNG. The
 * first chart also loads chart.js and the Skia canvas (a one-off per process, its own row).
 * Target: ≤ 300 ms for the whole, warm.
 */
import { sql } from 'drizzle-orm';
import { silentLogger } from '../src/core/logger.ts';
import { openDatabase } from '../src/db/database.ts';
import { ensureScope } from '../src/db/scope-settings-repository.ts';
import { loadUsageReport } from '../src/bot/commands/usage/usage-command.ts';
import type { UsageReport } from '../src/bot/commands/usage/usage-report.ts';
import type { BenchRow } from './bench-kit.ts';
import { medianMs } from './bench-kit.ts';

const MEMBERS = 1_000;
const DAYS = 30;
const TARGET_MS = 300;
const GUILD = '910000000000000001';
const NOW = Date.parse('2026-11-26T12:00:00Z');

export async function rows(): Promise<BenchRow[]> {
  const handle = await openDatabase({ kind: 'pglite', dataDir: undefined, logger: silentLogger });
  try {
    await handle.migrate();
    const { db } = handle;
    await ensureScope(db, GUILD, 'guild');
    // Each member on one of three models every day: 30,000 rows.
    await db.execute(sql`
      insert into member_daily_usage
        (scope_id, day, member_id, model, turns, input_tokens, cached_input_tokens, output_tokens, cost)
      select ${GUILD}, (date '2026-11-26' - d), (1000000 + m)::text,
             (array['gpt-5-mini', 'claude-sonnet-4-5', 'gemini-2.5-flash'])[1 + (m % 3)],
             1 + (m % 7), 2000 + m, 500, 300 + d, 1000000 + m * 1000
      from generate_series(0, ${DAYS - 1}) as d, generate_series(1, ${MEMBERS}) as m`);
    const view = { scopeId: GUILD };
    const { renderUsageChart } = await timedImport();
    const draw = (report: UsageReport) =>
      renderUsageChart({
        labels: report.days.map((day) => day.slice(5)),
        series: report.series,
        unit: 'cost',
        title: 'USD per day (UTC)',
        otherLabel: 'other',
      });
    let report = await loadUsageReport(db, view, NOW);
    const firstStarted = performance.now();
    await draw(report);
    const firstChartMs = performance.now() - firstStarted + importMs;
    const readMs = await medianMs(async () => {
      report = await loadUsageReport(db, view, NOW);
    });
    const drawMs = await medianMs(async () => {
      await draw(report);
    });
    const wholeMs = await medianMs(async () => {
      await draw(await loadUsageReport(db, view, NOW));
    });
    return [
      { name: 'usage: 30 d × 1,000 members read + summed (PGlite)', value: readMs, unit: 'ms p50' },
      { name: 'usage: chart drawn (PNG 1000×500)', value: drawMs, unit: 'ms p50' },
      {
        name: 'usage: /usage whole (read, sum, chart)',
        value: wholeMs,
        unit: 'ms p50',
        target: `≤ ${TARGET_MS}`,
        pass: wholeMs <= TARGET_MS,
      },
      { name: 'usage: first chart (loads chart.js + canvas)', value: firstChartMs, unit: 'ms' },
    ];
  } finally {
    await handle.close();
  }
}

let importMs = 0;

async function timedImport() {
  const started = performance.now();
  const module = await import('../src/bot/commands/usage/usage-chart.ts');
  importMs = performance.now() - started;
  return module;
}
