import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import { TargetWriteError } from './message-target.ts';

/**
 * The sink's own retries of one Discord write, spaced out. discord.js has already retried each
 * request 3 times at once (5xx, timeouts, connection resets) before it throws, so these are
 * for an outage longer than a blip: at most 3 × 4 = 12 requests per write, over about 4 s.
 * Creates carry a nonce with `enforce_nonce`, so a retried POST never posts twice.
 */
export const WRITE_RETRY_DELAYS_MS: readonly number[] = [1_000, 3_000];

/** A 5xx, a network failure or a 429 that reached us: the same write may succeed later. */
export function isRetryable(failure: TargetWriteError): boolean {
  return failure.failure === 'transient' || failure.failure === 'rate_limited';
}

export function asWriteError(error: unknown): TargetWriteError {
  return error instanceof TargetWriteError
    ? error
    : new TargetWriteError('other', error instanceof Error ? error.message : 'write failed', {
        cause: error,
      });
}

/** What became of a write: done, failed for good (with why), or dropped because the turn stopped. */
export type WriteOutcome =
  { kind: 'written' } | { kind: 'failed'; failure: TargetWriteError } | { kind: 'abandoned' };

/**
 * Runs `write`, retrying a retryable failure after each delay (or the retry-after Discord gave,
 * if longer) on the injected clock. `beforeRetry` takes a write token from the channel's budget
 * and answers false when the turn was stopped meanwhile: the write is then abandoned.
 */
export async function writeWithRetry(options: {
  write: () => Promise<unknown>;
  clock: Clock;
  logger: Logger;
  /** Aborted when the turn is stopped: a retry then never happens. */
  signal: AbortSignal;
  beforeRetry: () => Promise<boolean>;
  delaysMs?: readonly number[];
}): Promise<WriteOutcome> {
  const delays = options.delaysMs ?? WRITE_RETRY_DELAYS_MS;
  for (let attempt = 0; ; attempt += 1) {
    try {
      await options.write();
      return { kind: 'written' };
    } catch (error) {
      const failure = asWriteError(error);
      const delay = delays[attempt];
      if (!isRetryable(failure) || delay === undefined) return { kind: 'failed', failure };
      options.logger.warn(
        { failure: failure.failure, attempt: attempt + 1, retryInMs: delay },
        'a Discord write failed; retrying',
      );
      try {
        await options.clock.sleep(Math.max(delay, failure.retryAfterMs ?? 0), options.signal);
      } catch {
        return { kind: 'abandoned' };
      }
      if (!(await options.beforeRetry())) return { kind: 'abandoned' };
    }
  }
}
