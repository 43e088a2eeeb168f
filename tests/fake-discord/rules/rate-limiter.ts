import { createHash } from 'node:crypto';
import type { Clock } from '../../../src/core/clock.ts';

/** A per-route limit as Discord reports it: `limit` requests per `windowMs`. */
export interface BucketDefinition {
  /** Stable name; its hash is the `X-RateLimit-Bucket` value (shared by routes that share it). */
  name: string;
  limit: number;
  /** Window length at time scale 1 (Discord's figure). */
  windowMs: number;
}

/** The outcome of counting one request against a bucket. */
export interface BucketDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Epoch ms when the window resets. */
  resetAt: number;
  resetAfterMs: number;
  hash: string;
}

interface WindowState {
  used: number;
  resetAt: number;
}

/**
 * Fixed-window buckets keyed by bucket name + top-level resource (channel, guild, webhook),
 * plus the global per-bot limit: one window per token, so every connection and process that
 * uses the token draws from it, as on Discord. Every window is multiplied by `timeScale`, so a test can run
 * Discord's 5-per-5-s bucket as 5 per 250 ms and still see real header arithmetic.
 */
export class RateLimiter {
  readonly #clock: Clock;
  readonly #timeScale: number;
  readonly #globalLimit: number;
  readonly #globalTimeScale: number;
  readonly #windows = new Map<string, WindowState>();
  #globalRefusals = 0;

  constructor(options: {
    clock: Clock;
    timeScale: number;
    globalPerSecond: number;
    /** Scale of the global one-second window; default `timeScale`. */
    globalTimeScale?: number;
  }) {
    this.#clock = options.clock;
    this.#timeScale = options.timeScale;
    this.#globalLimit = options.globalPerSecond;
    this.#globalTimeScale = options.globalTimeScale ?? options.timeScale;
  }

  get timeScale(): number {
    return this.#timeScale;
  }

  get globalTimeScale(): number {
    return this.#globalTimeScale;
  }

  /** How many requests the global limit refused since the last reset (each one a global 429). */
  get globalRefusals(): number {
    return this.#globalRefusals;
  }

  /** Counts one request against `definition` for `resource` (e.g. a channel id). */
  take(definition: BucketDefinition, resource: string): BucketDecision {
    return this.#take({
      key: `${definition.name}:${resource}`,
      limit: definition.limit,
      windowMs: definition.windowMs * this.#timeScale,
      hash: bucketHash(definition.name),
    });
  }

  /** Looks at a bucket without counting (for headers on responses that did not count). */
  peek(definition: BucketDefinition, resource: string): BucketDecision {
    const now = this.#clock.now();
    const state = this.#windows.get(`${definition.name}:${resource}`);
    const windowMs = definition.windowMs * this.#timeScale;
    const fresh = state === undefined || now >= state.resetAt;
    const resetAt = fresh ? now + windowMs : state.resetAt;
    const used = fresh ? 0 : state.used;
    return {
      allowed: used < definition.limit,
      limit: definition.limit,
      remaining: Math.max(0, definition.limit - used),
      resetAt,
      resetAfterMs: resetAt - now,
      hash: bucketHash(definition.name),
    };
  }

  /** Counts one request against the bot's global limit (50 per second at scale 1). */
  takeGlobal(identity: string): BucketDecision {
    const decision = this.#take({
      key: `global:${identity}`,
      limit: this.#globalLimit,
      windowMs: 1000 * this.#globalTimeScale,
      hash: 'global',
    });
    if (!decision.allowed) this.#globalRefusals += 1;
    return decision;
  }

  /** Forgets every window and the refusal count (a test's fresh start). */
  reset(): void {
    this.#windows.clear();
    this.#globalRefusals = 0;
  }

  #take(bucket: { key: string; limit: number; windowMs: number; hash: string }): BucketDecision {
    const now = this.#clock.now();
    let state = this.#windows.get(bucket.key);
    if (state === undefined || now >= state.resetAt) {
      state = { used: 0, resetAt: now + bucket.windowMs };
      this.#windows.set(bucket.key, state);
    }
    const allowed = state.used < bucket.limit;
    if (allowed) state.used += 1;
    return {
      allowed,
      limit: bucket.limit,
      remaining: Math.max(0, bucket.limit - state.used),
      resetAt: state.resetAt,
      resetAfterMs: Math.max(0, state.resetAt - now),
      hash: bucket.hash,
    };
  }
}

/** A stable, opaque bucket id like Discord's (32 hex characters). */
export function bucketHash(name: string): string {
  return createHash('sha256').update(name).digest('hex').slice(0, 32);
}

/** Seconds with millisecond precision, as Discord formats Reset-After and retry_after. */
export function seconds(milliseconds: number): number {
  return Math.round(milliseconds) / 1000;
}

/** The five X-RateLimit-* headers Discord sends with every response of a limited route. */
export function rateLimitHeaders(decision: BucketDecision): Record<string, string> {
  return {
    'x-ratelimit-limit': String(decision.limit),
    'x-ratelimit-remaining': String(decision.remaining),
    'x-ratelimit-reset': (decision.resetAt / 1000).toFixed(3),
    'x-ratelimit-reset-after': seconds(decision.resetAfterMs).toFixed(3),
    'x-ratelimit-bucket': decision.hash,
  };
}

/**
 * Discord sends `Retry-After` in whole seconds (rounded up). A scaled-down test would then wait
 * a full second per 429, so below scale 1 the exact scaled value is sent instead.
 */
export function retryAfterHeader(retryAfterMs: number, timeScale: number): string {
  if (timeScale >= 1) return String(Math.max(1, Math.ceil(retryAfterMs / 1000)));
  return seconds(retryAfterMs).toFixed(3);
}
