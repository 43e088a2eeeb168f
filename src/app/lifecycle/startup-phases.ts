import type { Clock } from '../../core/clock.ts';
import { BotError } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';

/** The steps of a start, in order; each is logged at info with its duration. */
export type StartupPhase =
  'config' | 'database' | 'migrations' | 'providers' | 'discord-client' | 'tools' | 'discord-login';

/** A start-up step that failed: which one, and why (`cause`). */
export class StartupError extends BotError {
  readonly phase: StartupPhase;

  constructor(phase: StartupPhase, cause: unknown) {
    super('startup', `start-up failed in phase ${phase}`, { cause });
    this.phase = phase;
  }
}

/**
 * Times the phases of a start: "start-up phase done" with `phase` and `durationMs` at info, so a
 * slow first start shows where the time goes; a failure is wrapped in a StartupError naming
 * the phase, so the system that failed (database, Discord, …) is the one the operator is told.
 */
export class StartupPhases {
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #startedAt: number;

  constructor(options: { logger: Logger; clock: Clock; startedAt: number }) {
    this.#logger = options.logger;
    this.#clock = options.clock;
    this.#startedAt = options.startedAt;
  }

  /** Logs a phase that already ran (config is read before the logger exists). */
  done(phase: StartupPhase, startedAt: number): void {
    this.#logger.info({ phase, durationMs: this.#clock.now() - startedAt }, 'start-up phase done');
  }

  async run<T>(phase: StartupPhase, work: () => Promise<T>): Promise<T> {
    const startedAt = this.#clock.now();
    this.#logger.debug({ phase }, 'start-up phase begins');
    let result: T;
    try {
      result = await work();
    } catch (error) {
      throw error instanceof StartupError ? error : new StartupError(phase, error);
    }
    this.done(phase, startedAt);
    return result;
  }

  /** Since the process started (the first phase), for the "ready" line. */
  elapsedMs(): number {
    return this.#clock.now() - this.#startedAt;
  }
}
