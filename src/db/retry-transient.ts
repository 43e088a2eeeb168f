import type { Clock, RandomSource } from '../core/clock.ts';
import { isTransientDatabaseError } from './transient-database-error.ts';

export interface RetryTransientOptions {
  clock: Clock;
  /**
   * Ends the waiting: once aborted no wait starts and a wait under way ends, and the last
   * database error is thrown. An attempt always runs at least once, so a write made while
   * shutting down still gets its one try.
   */
  signal?: AbortSignal | undefined;
  /** No new attempt starts once this much time has passed since the first. */
  maxElapsedMs: number;
  /** The first wait; each next one doubles, up to `maxDelayMs`. */
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** Jitter: each wait is between half and all of its nominal length. */
  random?: RandomSource;
  /** Which failures are worth waiting out; the default is a database outage. */
  isTransient?: (error: unknown) => boolean;
  /** Called before each wait (to log it). */
  onRetry?: (retry: { attempt: number; error: unknown; delayMs: number }) => void;
}

export const RETRY_TRANSIENT_DEFAULTS = {
  initialDelayMs: 250,
  maxDelayMs: 5_000,
} as const;

/**
 * Runs `operation`, and again after a growing wait each time it fails with a transient
 * database error, until it succeeds, fails otherwise, or `maxElapsedMs` would be passed. The
 * last error is thrown. Only for operations that are safe to repeat (an update by id, an
 * upsert, an insert whose unique key makes a second try harmless).
 */
export async function retryTransient<T>(
  operation: () => Promise<T>,
  options: RetryTransientOptions,
): Promise<T> {
  const { clock, signal } = options;
  const isTransient = options.isTransient ?? isTransientDatabaseError;
  const random = options.random ?? Math.random;
  const maxDelayMs = options.maxDelayMs ?? RETRY_TRANSIENT_DEFAULTS.maxDelayMs;
  const startedAt = clock.now();
  let nominalDelay = options.initialDelayMs ?? RETRY_TRANSIENT_DEFAULTS.initialDelayMs;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await operation();
    } catch (error) {
      if (!isTransient(error)) throw error;
      const delayMs = Math.round(nominalDelay * (0.5 + random() / 2));
      if (signal?.aborted || clock.now() + delayMs - startedAt > options.maxElapsedMs) throw error;
      options.onRetry?.({ attempt, error, delayMs });
      await clock.sleep(delayMs, signal).catch(() => {
        throw error;
      });
      nominalDelay = Math.min(nominalDelay * 2, maxDelayMs);
    }
  }
}
