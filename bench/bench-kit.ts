/**
 * Shared shapes for `npm run bench`. A bench file (bench/*.bench.ts) exports
 * `rows(): Promise<BenchRow[]>`; the runner prints every row in one table. Targets are stated
 * as ratios or bounds measured in the same run, so a slower machine does not flip a verdict.
 */
export interface BenchRow {
  name: string;
  value: number;
  unit: string;
  /** Human-readable target, e.g. "≤ 1.2" or "≥ 50 MB/s". */
  target?: string;
  /** Whether the value meets the target; undefined when the row has no target. */
  pass?: boolean;
}

export type BenchModule = { rows(): Promise<BenchRow[]> };

/** Milliseconds taken by `work`, the median of `runs` runs after `warmup` runs. */
export async function medianMs(
  work: () => Promise<void> | void,
  options: { runs?: number; warmup?: number } = {},
): Promise<number> {
  const { runs = 5, warmup = 1 } = options;
  for (let index = 0; index < warmup; index += 1) await work();
  const samples: number[] = [];
  for (let index = 0; index < runs; index += 1) {
    const started = process.hrtime.bigint();
    await work();
    samples.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return percentile(samples, 50);
}

export function percentile(samples: readonly number[], rank: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const index = Math.min(
    sorted.length - 1,
    Math.max(0, Math.ceil((rank / 100) * sorted.length) - 1),
  );
  return sorted[index] ?? Number.NaN;
}
