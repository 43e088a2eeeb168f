import type { Clock } from '../core/clock.ts';

/**
 * Discord allows a bot 50 requests per second in all. The margin absorbs what moves requests
 * closer together between here and Discord: event-loop stalls, connection setup, jitter.
 */
export const GLOBAL_REQUESTS_PER_SECOND = 40;
const WINDOW_MS = 1_000;

/**
 * Each process's share when `processCount` processes use one token without a REST proxy, so
 * their sum stays at GLOBAL_REQUESTS_PER_SECOND (at least one request per second each).
 */
export function processRequestsPerSecond(processCount: number): number {
  return Math.max(1, Math.floor(GLOBAL_REQUESTS_PER_SECOND / Math.max(1, processCount)));
}

/**
 * Paces every REST request of the process with a sliding window: at most `limit` requests
 * start in any `windowMs`. discord.js counts the global limit in fixed one-second windows of
 * its own, which are out of step with Discord's, so a burst (two hundred channels starting at
 * once) could put up to twice the limit into one of Discord's windows and earn 429s. A sliding
 * window can't: whatever Discord's window, it never holds more than `limit` of ours.
 */
export class GlobalRequestPacer {
  readonly #clock: Clock;
  readonly #limit: number;
  readonly #windowMs: number;
  /** Start times of the requests in the current window, oldest first. */
  readonly #starts: number[] = [];
  #queue: Promise<void> = Promise.resolve();

  constructor(options: { clock: Clock; limit?: number; windowMs?: number }) {
    this.#clock = options.clock;
    this.#limit = options.limit ?? GLOBAL_REQUESTS_PER_SECOND;
    this.#windowMs = options.windowMs ?? WINDOW_MS;
  }

  /** Resolves when one more request may start; callers are served in order. */
  acquire(): Promise<void> {
    const turn = this.#queue.then(() => this.#waitForRoom());
    this.#queue = turn.catch(() => undefined);
    return turn;
  }

  async #waitForRoom(): Promise<void> {
    for (;;) {
      const now = this.#clock.now();
      while (this.#starts.length > 0 && (this.#starts[0] ?? 0) <= now - this.#windowMs)
        this.#starts.shift();
      const oldest = this.#starts[0];
      if (oldest === undefined || this.#starts.length < this.#limit) {
        this.#starts.push(now);
        return;
      }
      await this.#clock.sleep(oldest + this.#windowMs - now);
    }
  }
}
