import { abortError, type Clock } from '../../core/clock.ts';

interface Timer {
  at: number;
  ms: number;
  resolve: () => void;
}

/**
 * A clock tests drive by hand: `sleep` resolves only when `advance` moves time past it, so no
 * test waits for real time. `advance` lets pending promise callbacks run between timers, so a
 * chain of sleeps (a watchdog re-armed after each part) fires in order. The one manual clock
 * of the project: src unit tests and tests/ both import it from here.
 */
export class ManualClock implements Clock {
  /** Every duration asked of `sleep`, in order, including sleeps already fired or aborted. */
  readonly requestedSleeps: number[] = [];
  private current: number;
  // A Set keeps insertion order, and the sort in `advance` is stable: equal deadlines fire
  // in the order their sleeps started.
  private readonly timers = new Set<Timer>();
  private sleepWaiters: Array<() => void> = [];

  constructor(start = 1_700_000_000_000) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.requestedSleeps.push(ms);
    if (signal?.aborted) return Promise.reject(abortError(signal));
    const sleeping = new Promise<void>((resolve, reject) => {
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
    const waiters = this.sleepWaiters;
    this.sleepWaiters = [];
    for (const wake of waiters) wake();
    return sleeping;
  }

  /** The durations of the sleeps now pending, in the order they were started. */
  pendingSleeps(): number[] {
    return [...this.timers].map((timer) => timer.ms);
  }

  /** Resolves once some code is sleeping on this clock (at once when something already is). */
  untilSleeping(): Promise<void> {
    if (this.timers.size > 0) return Promise.resolve();
    return new Promise((resolve) => this.sleepWaiters.push(resolve));
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

/**
 * Lets every already-queued promise callback run, several event-loop turns deep (macrotask
 * turns, not a wait for time).
 */
export async function settle(turns = 5): Promise<void> {
  for (let turn = 0; turn < turns; turn += 1) {
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}
