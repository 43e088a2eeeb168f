import type { Clock } from '../../core/clock.ts';
import { LruMap } from '../../core/lru-map.ts';

/** Channels whose write budget is kept by default; the least recently written is forgotten. */
export const WRITE_BUDGET_CHANNELS = 5_000;

/** What Discord's X-RateLimit-* headers said about a channel's write bucket. */
export interface BucketReading {
  limit: number;
  remaining: number;
  resetAfterMs: number;
}

interface Budget {
  limit: number;
  remaining: number;
  resetAt: number;
}

/**
 * One write budget per channel, learned from Discord's rate-limit headers and shared by every
 * write to that channel (message creates and edits share the channel's bucket). Writers ask
 * `reserve` before each write: 0 means go now (a token is taken), otherwise how long to wait.
 * Nothing is hard-coded: an unknown channel is optimistic until the first response teaches
 * its limit, and a 429 locks the channel for its retry-after. Bounded to `channels` budgets:
 * a forgotten channel is optimistic again, as after a restart, and the next response teaches it.
 */
export class WriteBudgets {
  private readonly budgets: LruMap<string, Budget>;
  private readonly clock: Clock;

  constructor(clock: Clock, channels = WRITE_BUDGET_CHANNELS) {
    this.clock = clock;
    this.budgets = new LruMap(channels);
  }

  /** Channels whose budget is kept. */
  get size(): number {
    return this.budgets.size;
  }

  observe(channelId: string, reading: BucketReading): void {
    this.budgets.set(channelId, {
      limit: reading.limit,
      remaining: reading.remaining,
      resetAt: this.clock.now() + reading.resetAfterMs,
    });
  }

  observeRateLimited(channelId: string, retryAfterMs: number): void {
    const budget = this.budgets.get(channelId);
    this.budgets.set(channelId, {
      limit: budget?.limit ?? 1,
      remaining: 0,
      resetAt: this.clock.now() + retryAfterMs,
    });
  }

  /** 0 and a token taken, or the milliseconds to wait before asking again. */
  reserve(channelId: string): number {
    const budget = this.budgets.get(channelId);
    if (budget === undefined) return 0;
    const now = this.clock.now();
    if (now >= budget.resetAt && budget.remaining <= 0) {
      // The window passed without a fresh reading: refill optimistically, the next response corrects it.
      budget.remaining = budget.limit;
    }
    if (budget.remaining > 0) {
      budget.remaining -= 1;
      return 0;
    }
    return Math.max(1, budget.resetAt - now);
  }

  /** Whether a write could go now, without taking a token. */
  available(channelId: string): boolean {
    const budget = this.budgets.get(channelId);
    return budget === undefined || budget.remaining > 0 || this.clock.now() >= budget.resetAt;
  }

  forget(channelId: string): void {
    this.budgets.delete(channelId);
  }
}

/** Reads a channel bucket from response headers; undefined when they are absent or malformed. */
export function readBucket(headers: {
  get(name: string): string | null;
}): BucketReading | undefined {
  const limit = Number(headers.get('x-ratelimit-limit'));
  const remaining = Number(headers.get('x-ratelimit-remaining'));
  const resetAfter = Number(headers.get('x-ratelimit-reset-after'));
  if (
    ![limit, remaining, resetAfter].every(Number.isFinite) ||
    headers.get('x-ratelimit-limit') === null
  ) {
    return undefined;
  }
  return { limit, remaining, resetAfterMs: Math.ceil(resetAfter * 1000) };
}
