/**
 * Memory given back once the process falls quiet.
 *
 * V8 grows its young generation under load (to 16 MB with the start script's
 * `--max-semi-space-size=8`) and shrinks it, and returns its pooled pages to the system, only in
 * a collection run to reduce memory. Its own memory reducer decides by the allocation rate it
 * measured at the last collection, so a process that falls quiet after a burst — the start
 * itself, a conversation — keeps judging itself busy and never runs one
 * (`--trace-memory-reducer`: "high alloc" every 8 s in an idle bot, for good). Here the process
 * does what the reducer would: after a second in which the event loop ran code for at most
 * QUIET_BUSY_SHARE of the time, with no turn live or waiting and no voice call up (a streamed
 * reply or a call's audio would stall for the pause), one full collection that reduces memory
 * (V8's last-resort collection: two mark-compacts, 55–65 ms of main thread and 90–120 ms of CPU
 * with PostgreSQL at rest; RSS 111–113 → 90–91 MB). At most once per MIN_INTERVAL_MS, and only
 * when the young generation has grown (else there is little to give back), so a bot that is
 * never quiet for a second pays nothing and one that is pays at most 0.4% of a core. (Once a
 * minute made the bounded bench's readings, 53 s apart, differ in whether one had run before.)
 */
import { performance } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';

export const POLL_MS = 1_000;
export const QUIET_BUSY_SHARE = 0.05;
export const MIN_INTERVAL_MS = 30_000;
/** The young generation starts at 1 MB (0.3 MB touched after a reducing collection). */
export const GROWN_YOUNG_GENERATION_BYTES = 4 * 1024 * 1024;

/** What the policy reads and does; the real ones are `v8Memory()`. */
export interface RestCollectionProbes {
  /** The share (0–1) of the time since the previous call the event loop spent running code. */
  busyShare(): number;
  /** Bytes the young generation holds from the system now. */
  youngGenerationBytes(): number;
  /** One collection that gives memory back to the system; RSS in bytes before and after. */
  collect(): { rssBefore: number; rssAfter: number };
}

export interface RestCollectionOptions {
  clock: Clock;
  probes: RestCollectionProbes;
  /** The application's own say: nothing under way that a pause would hold up (a turn, a call). */
  atRest(): boolean;
  logger: Logger;
  /** Aborted at shutdown: the loop ends. */
  signal: AbortSignal;
}

/** The policy, one poll at a time (kept apart from the loop so it is tested without timers). */
export class RestCollection {
  private lastCollectedAt = Number.NEGATIVE_INFINITY;
  private readonly options: Omit<RestCollectionOptions, 'signal'>;

  constructor(options: Omit<RestCollectionOptions, 'signal'>) {
    this.options = options;
    options.probes.busyShare(); // the first poll measures from here
  }

  /** Called every POLL_MS: collects when the last poll's span was quiet and it is worth it. */
  poll(): void {
    const { probes, clock, logger } = this.options;
    if (probes.busyShare() > QUIET_BUSY_SHARE || !this.options.atRest()) return;
    const now = clock.now();
    if (now - this.lastCollectedAt < MIN_INTERVAL_MS) return;
    if (probes.youngGenerationBytes() < GROWN_YOUNG_GENERATION_BYTES) return;
    this.lastCollectedAt = now;
    const startedAt = performance.now();
    const { rssBefore, rssAfter } = probes.collect();
    logger.debug(
      {
        rssBeforeMb: toMb(rssBefore),
        rssAfterMb: toMb(rssAfter),
        ms: Math.round(performance.now() - startedAt),
      },
      'memory given back at rest',
    );
    // The collection's own time is not the next poll's business.
    probes.busyShare();
  }
}

/** Polls until `signal` aborts. Never throws. */
export async function collectAtRest(options: RestCollectionOptions): Promise<void> {
  const policy = new RestCollection(options);
  for (;;) {
    try {
      await options.clock.sleep(POLL_MS, options.signal);
    } catch {
      return;
    }
    policy.poll();
  }
}

/**
 * The real probes, or undefined when the process was started without `--expose-gc` (`npm
 * start`, the Dockerfile and the README's service lines pass it): then nothing is polled.
 */
export function v8Memory(): RestCollectionProbes | undefined {
  const collectGarbage = globalThis.gc;
  if (collectGarbage === undefined) return undefined;
  let last = performance.eventLoopUtilization();
  return {
    busyShare() {
      const now = performance.eventLoopUtilization();
      const share = performance.eventLoopUtilization(now, last).utilization;
      last = now;
      return share;
    },
    youngGenerationBytes: () =>
      getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')
        ?.physical_space_size ?? 0,
    collect() {
      const rssBefore = process.memoryUsage.rss();
      collectGarbage({ type: 'major', flavor: 'last-resort' });
      return { rssBefore, rssAfter: process.memoryUsage.rss() };
    },
  };
}

function toMb(bytes: number): number {
  return Math.round((bytes / (1024 * 1024)) * 10) / 10;
}
