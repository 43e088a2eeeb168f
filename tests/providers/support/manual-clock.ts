import { abortError, type Clock } from '../../../src/core/clock.ts';

interface Sleeper {
  until: number;
  resolve: () => void;
}

/** A Clock driven by the test: sleeps resolve only when `advance` passes their deadline. */
export class ManualClock implements Clock {
  #now: number;
  readonly #sleepers: Sleeper[] = [];
  /** Every duration asked of `sleep`, in order. */
  readonly sleeps: number[] = [];

  constructor(start = 1_700_000_000_000) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
    if (signal?.aborted) return Promise.reject(abortError(signal));
    return new Promise((resolve, reject) => {
      const sleeper: Sleeper = {
        until: this.#now + ms,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = (): void => {
        this.#sleepers.splice(this.#sleepers.indexOf(sleeper), 1);
        reject(abortError(signal));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#sleepers.push(sleeper);
    });
  }

  /** Sleeps not yet resolved. */
  get pending(): number {
    return this.#sleepers.length;
  }

  /** Moves time forward and wakes every sleeper whose deadline has passed. */
  advance(ms: number): void {
    this.#now += ms;
    for (const sleeper of [...this.#sleepers]) {
      if (sleeper.until <= this.#now) {
        this.#sleepers.splice(this.#sleepers.indexOf(sleeper), 1);
        sleeper.resolve();
      }
    }
  }

  /** Resolves once some code is sleeping (lets a test wait for a backoff to start). */
  async untilSleeping(): Promise<void> {
    for (let turn = 0; turn < 1_000 && this.#sleepers.length === 0; turn += 1) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (this.#sleepers.length === 0) throw new Error('nothing started sleeping');
  }
}
