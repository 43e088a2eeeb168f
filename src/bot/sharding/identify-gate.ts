import { abortError, type Clock } from '../../core/clock.ts';

/** How long one IDENTIFY holds its rate-limit key (Discord: one per key per 5 s). */
export const IDENTIFY_WINDOW_MS = 5_000;

interface KeyState {
  /** The process starting on this key now (from its spawn until its shards are ready). */
  holder: number | undefined;
  /** When the key's 5 s window since its last IDENTIFY ends. */
  freeAt: number;
}

/**
 * Paces shard process starts across the manager by IDENTIFY rate-limit key (`shard_id %
 * max_concurrency`): a process starts only when every key of its shards is free, holds them
 * until its shards are ready (their IDENTIFY is then behind them), and frees them 5 s later.
 * So at most `max_concurrency` IDENTIFYs start in any 5 s, across this host's processes; inside
 * one process discord.js's own throttler paces its shards the same way.
 */
export class IdentifyGate {
  readonly #clock: Clock;
  readonly #windowMs: number;
  readonly #keys = new Map<number, KeyState>();
  #released: Array<() => void> = [];

  constructor(options: { clock: Clock; windowMs?: number }) {
    this.#clock = options.clock;
    this.#windowMs = options.windowMs ?? IDENTIFY_WINDOW_MS;
  }

  /** Waits until every key in `keys` is free, then holds them for `holder`. */
  async acquire(options: {
    keys: readonly number[];
    holder: number;
    signal?: AbortSignal;
  }): Promise<void> {
    const { keys, holder, signal } = options;
    for (;;) {
      if (signal?.aborted) throw abortError(signal);
      const states = keys.flatMap((key) => this.#keys.get(key) ?? []);
      if (states.some((state) => state.holder !== undefined)) {
        await this.#nextRelease(signal);
        continue;
      }
      const waitMs = Math.max(0, ...states.map((state) => state.freeAt - this.#clock.now()));
      if (waitMs > 0) {
        await this.#clock.sleep(waitMs, signal);
        continue;
      }
      for (const key of keys) this.#keys.set(key, { holder, freeAt: Infinity });
      return;
    }
  }

  /** `holder`'s shards identified (or its process died): its keys free up after the window. */
  release(holder: number): void {
    const freeAt = this.#clock.now() + this.#windowMs;
    let changed = false;
    for (const state of this.#keys.values()) {
      if (state.holder !== holder) continue;
      state.holder = undefined;
      state.freeAt = freeAt;
      changed = true;
    }
    if (!changed) return;
    const waiters = this.#released;
    this.#released = [];
    for (const wake of waiters) wake();
  }

  #nextRelease(signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const onAbort = (): void => reject(abortError(signal));
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#released.push(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
    });
  }
}
