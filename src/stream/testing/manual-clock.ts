import { abortError, type Clock } from '../../core/clock.ts';

interface Timer {
  at: number;
  ms: number;
  resolve: () => void;
}

/**
 * A clock tests drive by hand: `sleep` resolves only when `advance` moves time past it, so no
 * test waits for real time. `advance` lets pending promise callbacks run between timers, so a
 * chain of sleeps (a watchdog re-armed after each part) fires in order.
 */
export class ManualClock implements Clock {
  private current: number;
  private readonly timers = new Set<Timer>();

  constructor(start = 1_700_000_000_000) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortError(signal));
    return new Promise<void>((resolve, reject) => {
      const timer: Timer = {
        at: this.current + Math.max(0, ms),
        ms,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = (): void => {
        this.timers.delete(timer);
        reject(abortError(signal));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.timers.add(timer);
    });
  }

  /** The durations of the sleeps now pending, in the order they were started. */
  pendingSleeps(): number[] {
    return [...this.timers].map((timer) => timer.ms);
  }

  /** Moves time forward by `ms`, firing every sleep that falls due, in time order. */
  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    for (;;) {
      await settle();
      const due = [...this.timers]
        .filter((timer) => timer.at <= target)
        .sort((a, b) => a.at - b.at)[0];
      if (due === undefined) break;
      this.timers.delete(due);
      this.current = Math.max(this.current, due.at);
      due.resolve();
    }
    this.current = target;
    await settle();
  }
}

/** Lets every pending promise callback run (a macrotask turn, not a wait for time). */
export async function settle(): Promise<void> {
  for (let round = 0; round < 3; round += 1) {
    await new Promise<void>((resolve) => setTimeout(resolve, 0));
  }
}
