/** The first restart of a crashed shard process waits this long; each crash in a row doubles it. */
export const FIRST_RESTART_DELAY_MS = 1_000;
export const MAX_RESTART_DELAY_MS = 60_000;
/** A process that ran this long before dying starts the doubling over. */
export const STABLE_RUN_MS = 60_000;

/**
 * Exponential backoff for one shard process: 1 s, 2 s, 4 s … up to 60 s while it keeps dying
 * soon after its start; back to 1 s once a run lasted a minute.
 */
export class RestartBackoff {
  #crashesInARow = 0;

  /** The wait before the next start, given how long the run that just ended lasted. */
  next(runMs: number): number {
    this.#crashesInARow = runMs >= STABLE_RUN_MS ? 0 : this.#crashesInARow;
    const delay = FIRST_RESTART_DELAY_MS * 2 ** this.#crashesInARow;
    this.#crashesInARow += 1;
    return Math.min(delay, MAX_RESTART_DELAY_MS);
  }
}
