import type { Clock } from '../../core/clock.ts';

/** Discord's global limit of a bot: 50 requests per second, unless Discord raised it. */
export const DISCORD_GLOBAL_REQUESTS_PER_SECOND = 50;
/**
 * The share of it the bot uses. The margin absorbs what moves requests closer together between
 * here and Discord: event-loop stalls, connection setup, jitter.
 */
const GLOBAL_BUDGET_SHARE = 0.8;
/** 40 of Discord's 50. */
export const GLOBAL_REQUESTS_PER_SECOND = budgetOf(DISCORD_GLOBAL_REQUESTS_PER_SECOND);

/** The requests per second the bot may use of a global limit of `discordLimit`. */
export function budgetOf(discordLimit: number): number {
  return Math.max(1, Math.floor(discordLimit * GLOBAL_BUDGET_SHARE));
}
const WINDOW_MS = 1_000;
/** The window is cut into this many slices, each allowed its share of the limit (see below). */
const SLICES = 4;

/**
 * Each process's share when `processCount` processes use one token without a REST proxy, so
 * their sum stays within the budget (at least one request per second each).
 */
export function processRequestsPerSecond(
  processCount: number,
  discordLimit = DISCORD_GLOBAL_REQUESTS_PER_SECOND,
): number {
  return Math.max(1, Math.floor(budgetOf(discordLimit) / Math.max(1, processCount)));
}

/**
 * Paces every REST request of the process with a sliding window: at most `limit` requests
 * start in any `windowMs`. discord.js counts the global limit in fixed one-second windows of
 * its own, which are out of step with Discord's, so a burst (two hundred channels starting at
 * once) could put up to twice the limit into one of Discord's windows and earn 429s. A sliding
 * window can't: whatever Discord's window, it never holds more than `limit` of ours.
 *
 * It also caps every quarter window at a quarter of the limit. Requests reach Discord with
 * jitter, so Discord's one second can hold a little more than one of ours; a full window's
 * burst at each edge would then add up to nearly twice the limit, while spread-out starts add
 * at most a slice's share. That matters when several processes pace side by side (40 / N
 * each, measured in a trial: 12 global 429s with bursts, none spread out).
 */
export class GlobalRequestPacer {
  readonly #clock: Clock;
  readonly #windows: readonly { limit: number; windowMs: number }[];
  readonly #historyMs: number;
  /** Start times of the requests in the longest window, oldest first. */
  readonly #starts: number[] = [];
  #queue: Promise<void> = Promise.resolve();

  constructor(options: { clock: Clock; limit?: number; windowMs?: number }) {
    this.#clock = options.clock;
    const limit = options.limit ?? GLOBAL_REQUESTS_PER_SECOND;
    const windowMs = options.windowMs ?? WINDOW_MS;
    this.#windows = [
      { limit, windowMs },
      { limit: Math.ceil(limit / SLICES), windowMs: windowMs / SLICES },
    ];
    this.#historyMs = windowMs;
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
      while (this.#starts.length > 0 && (this.#starts[0] ?? 0) <= now - this.#historyMs)
        this.#starts.shift();
      const waitMs = Math.max(0, ...this.#windows.map((window) => this.#waitFor(window, now)));
      if (waitMs === 0) {
        this.#starts.push(now);
        return;
      }
      await this.#clock.sleep(waitMs);
    }
  }

  /** 0 when `window` has room now, else how long until its oldest start leaves it. */
  #waitFor(window: { limit: number; windowMs: number }, now: number): number {
    const inWindow = this.#starts.filter((start) => start > now - window.windowMs);
    if (inWindow.length < window.limit) return 0;
    const blocking = inWindow[inWindow.length - window.limit] ?? now;
    return blocking + window.windowMs - now;
  }
}
