import { abortError, type Clock } from '../../../src/core/clock.ts';

interface Timer {
  at: number;
  resolve: () => void;
}

/** A clock that only moves when a test says so; sleeps resolve as time passes them. */
export class ManualClock implements Clock {
  #now: number;
  #timers: Timer[] = [];

  constructor(start = Date.UTC(2026, 0, 15, 12, 0, 0)) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  /** How many sleeps are waiting (lets a test wait until a loop has gone to sleep). */
  get pendingSleeps(): number {
    return this.#timers.length;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortError(signal));
    return new Promise((resolve, reject) => {
      const timer: Timer = {
        at: this.#now + Math.max(0, ms),
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        this.#timers = this.#timers.filter((candidate) => candidate !== timer);
        reject(abortError(signal));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#timers.push(timer);
    });
  }

  /** Moves time forward, firing every sleep that comes due, in order. */
  async advance(ms: number): Promise<void> {
    const target = this.#now + ms;
    for (;;) {
      await flushMicrotasks();
      const next = this.#timers
        .filter((timer) => timer.at <= target)
        .sort((left, right) => left.at - right.at)[0];
      if (next === undefined) break;
      this.#timers = this.#timers.filter((timer) => timer !== next);
      this.#now = Math.max(this.#now, next.at);
      next.resolve();
    }
    this.#now = target;
    await flushMicrotasks();
  }
}

/** Lets queued promise continuations run (a macrotask turn; not a timed sleep). */
export function flushMicrotasks(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
