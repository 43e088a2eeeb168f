/**
 * The chaos test as vitest runs it, once per database. Its size comes from the environment, so
 * CI's short run and `npm run chaos`'s long one are the same test:
 *
 *   CHAOS_SEED=<n>          replays a run (the schedule is drawn from it alone)
 *   CHAOS_DURATION_MS=<ms>  how long mentions and faults go on (CI: 30 s)
 *   CHAOS_MENTIONS=<n>      how many mentions (CI: 200)
 *   CHAOS_FAULT_EVERY_MS    one fault per this many ms on average, every kind at least once
 *   CHAOS_LOG_FILE=<path>   keeps the bot's whole output there, and every model call and
 *                          channel message in <path>.json (for diagnosing a violation)
 */
import { writeFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { findPostgresBinaries } from '../../../support/pg-cluster.ts';
import { chaosSeed } from './prng.ts';
import { runChaos } from './chaos-run.ts';
import { countChaos, formatChaosReport } from './report.ts';
import { DATABASE_FAULTS, drawPlan, FAULT_KINDS } from './schedule.ts';

const CI_DURATION_MS = 30_000;
const CI_MENTIONS = 200;
const CHANNELS = 10;
const MEMBERS = 3;
const DEFAULT_FAULT_EVERY_MS = 5_000;
/** Start-up, restarts and the drain on top of the schedule: a ceiling on a loaded machine. */
const OVERHEAD_CEILING_MS = 12 * 60_000;

/**
 * What the run still meets, known and open. A lost mention always fails the run. While this
 * names anything, a run whose only violations are answers twice or context misses prints them
 * and is SKIPPED with this note instead of failing; empty, the run is strict. Empty since ten
 * new seeds in a row passed strictly on each database (README, "The chaos run").
 */
export const KNOWN_OPEN_DEFECTS: string = '';

function positiveNumber(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value <= 0) {
    throw new Error(`${name} must be a positive whole number, got "${text}"`);
  }
  return value;
}

export function chaosTest(database: 'postgres' | 'pglite'): void {
  const binaries = findPostgresBinaries();
  const unavailable = database === 'postgres' && 'skipped' in binaries;
  const durationMs = positiveNumber('CHAOS_DURATION_MS', CI_DURATION_MS);
  const kinds = FAULT_KINDS.filter((kind) => database === 'postgres' || !DATABASE_FAULTS.has(kind));
  const title = `chaos on ${database}: every mention answered or told, none twice, every delivered answer in the later context`;
  it.skipIf(unavailable)(
    title,
    async (context) => {
      const plan = drawPlan({
        seed: chaosSeed(),
        durationMs,
        mentions: positiveNumber('CHAOS_MENTIONS', CI_MENTIONS),
        channels: CHANNELS,
        members: MEMBERS,
        kinds,
        faultEveryMs: positiveNumber('CHAOS_FAULT_EVERY_MS', DEFAULT_FAULT_EVERY_MS),
      });
      const label = `[chaos ${database} seed ${plan.seed}]`;
      process.stdout.write(`${label} starting (CHAOS_SEED=${plan.seed} replays it)\n`);
      const result = await runChaos({
        plan,
        database,
        log: (line) => process.stdout.write(`${label} ${line}\n`),
      });
      const report = formatChaosReport(result);
      process.stdout.write(`\n${report}\n\n`);
      const logFile = process.env.CHAOS_LOG_FILE;
      if (logFile !== undefined && logFile !== '') {
        writeFileSync(logFile, result.botOutput());
        const outcomes = result.judgement.verdicts.map((verdict) => ({
          index: verdict.mention.index,
          outcome: verdict.outcome,
          twice: verdict.twice,
        }));
        const evidence = { mentions: result.mentions, outcomes, ...result.evidence() };
        writeFileSync(`${logFile}.json`, JSON.stringify(evidence, undefined, 1));
        process.stdout.write(`${label} the bot's whole output is in ${logFile}\n`);
      }
      const counts = countChaos(result);
      // The promise itself holds whatever is open: every mention answered or told.
      expect(counts.lost, `seed ${plan.seed}: lost mentions, see the report above`).toBe(0);
      expect(counts.answered + counts.told).toBe(counts.mentions);
      const violations = counts.twice + counts.contextMisses;
      if (violations > 0 && KNOWN_OPEN_DEFECTS !== '') {
        context.skip(
          `${violations} violations, known open: ${KNOWN_OPEN_DEFECTS} (seed ${plan.seed})`,
        );
      }
      expect(
        { lost: counts.lost, twice: counts.twice, contextMisses: counts.contextMisses },
        `seed ${plan.seed}: see the report above`,
      ).toEqual({ lost: 0, twice: 0, contextMisses: 0 });
      expect(counts.answered + counts.told).toBe(counts.mentions);
    },
    // Restarts push the faults after them back (chaos-run.ts): a long run may take twice as long.
    2 * durationMs + OVERHEAD_CEILING_MS,
  );
}
