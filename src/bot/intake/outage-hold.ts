import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import { retryTransient } from '../../db/retry-transient.ts';

/** Runs a database step, retrying it through a short outage; throws when the outage lasts. */
export type DatabaseStep = <T>(step: () => Promise<T>) => Promise<T>;

/** How long intake holds a message (or a Retry press) through a database outage. */
export const OUTAGE_HOLD_MS = 120_000;

/**
 * A database step of intake (a message, a Retry press), retried through a short outage for up
 * to OUTAGE_HOLD_MS. `signal` ends the hold early: at shutdown the held messages cannot be
 * claimed or handed back, so their members are told at once — a supervisor would kill a process
 * that waited out the whole hold, and the messages would be lost unseen.
 */
export function outageHold(options: {
  clock: Clock;
  logger: Logger;
  signal: AbortSignal;
}): DatabaseStep {
  const { clock, logger, signal } = options;
  return (step) =>
    retryTransient(step, {
      clock,
      signal,
      maxElapsedMs: OUTAGE_HOLD_MS,
      onRetry: ({ attempt, error }) => {
        if (attempt === 1) logger.warn({ err: error }, 'database unreachable: holding a message');
      },
    });
}
