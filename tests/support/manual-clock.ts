import { abortError, type Clock } from '../../src/core/clock.ts';

interface Timer {
  at: number;
  order: number;
  resolve: () => void;
}

/**
 * A clock that only moves when a test says so. `advance` fires due sleepers in time order and
 * lets the promise chains they release run before it returns — no real waiting.
 */
export class ManualClock implements Clock {
  private current: number;
  private timers: Timer[] = [];
  private order = 0;

  constructor(start = 1_700_000_000_000) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(abortError(signal));
        return;
      }
      const timer: Timer = { at: this.current + Math.max(0, ms), order: this.order++, resolve };
      this.timers.push(timer);
      signal?.addEventListener(
        'abort',
        () => {
          this.timers = this.timers.filter((candidate) => candidate !== timer);
          reject(abortError(signal));
        },
        { once: true },
      );
    });
  }

  /** Pending sleepers (for assertions). */
  get pendingTimers(): number {
    return this.timers.length;
  }

  /** Moves time forward by `ms`, firing every sleeper due on the way, in order. */
  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    for (;;) {
      await settle();
      const due = this.timers
        .filter((timer) => timer.at <= target)
        .sort((a, b) => a.at - b.at || a.order - b.order)[0];
      if (due === undefined) break;
      this.timers = this.timers.filter((timer) => timer !== due);
      this.current = Math.max(this.current, due.at);
      due.resolve();
    }
    this.current = target;
    await settle();
  }
}

/** Lets every already-queued promise callback run (several macrotask turns deep). */
export async function settle(turns = 5): Promise<void> {
  for (let index = 0; index < turns; index += 1) {
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}
