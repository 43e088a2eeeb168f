import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';

/** How long a failing process may spend closing the database, servers and the client. */
export const FAILURE_CLEANUP_DEADLINE_MS = 5_000;

export interface ProcessExitOptions {
  logger: Logger;
  clock: Clock;
  /** Closes what the process opened (database, servers, Discord client); may hang. */
  cleanup: () => Promise<void>;
  /** `process.exit` in production. */
  exit: (code: number) => void;
  deadlineMs?: number;
}

/**
 * The one way a failing process ends: one fatal line (the first failure wins, later ones are
 * only logged at debug), cleanup bounded by a deadline, then exit with status 1.
 *
 * Waiting for the event loop to drain is not enough: after `client.destroy()` discord.js keeps
 * reconnecting a shard that was between attempts, so a failed process would look alive forever
 * and no supervisor (Docker, systemd, pm2) would restart it.
 */
export class ProcessExit {
  readonly #options: ProcessExitOptions;
  #failing = false;

  constructor(options: ProcessExitOptions) {
    this.#options = options;
  }

  get failing(): boolean {
    return this.#failing;
  }

  /** Logs `message` at fatal level (once per process), cleans up, exits 1. */
  fail(message: string, fields: Record<string, unknown> = {}): void {
    const { logger } = this.#options;
    if (this.#failing) {
      logger.debug({ ...fields, reason: message }, 'a further failure while exiting');
      return;
    }
    this.#failing = true;
    logger.fatal(fields, message);
    void this.#cleanUpAndExit();
  }

  async #cleanUpAndExit(): Promise<void> {
    const { clock, cleanup, exit, logger } = this.#options;
    const deadlineMs = this.#options.deadlineMs ?? FAILURE_CLEANUP_DEADLINE_MS;
    const deadline = new AbortController();
    const outcome = await Promise.race([
      cleanup().then(
        () => 'clean' as const,
        () => 'clean' as const,
      ),
      clock.sleep(deadlineMs, deadline.signal).then(
        () => 'deadline' as const,
        () => 'clean' as const,
      ),
    ]);
    deadline.abort();
    if (outcome === 'deadline') logger.warn({ deadlineMs }, 'cleanup did not finish in time');
    exit(1);
  }
}
