/**
 * What SIGTERM (or SIGINT) does. `installShutdown` runs the process's shutdown steps once, then
 * exits 0 (1 if a step threw). The steps are registered by main.ts as each part starts, and run
 * newest first, so a part closes before what it depends on:
 *   1. the bot (DiscordBot.shutdown): intake stops taking messages; those accepted but not
 *      started, and triggers the gateway still delivers during the grace, are handed back
 *      (their claims released, for another process or the next start);
 *      live turns get SHUTDOWN_GRACE_MS to finish, then are stopped and recorded `stopped`;
 *   2. the gateway monitor, then the Discord client;
 *   3. the reminder scheduler and maintenance timers, the MCP servers and tools;
 *   4. the metrics server, key resealing, the liveness lock, and last the database.
 * A sharding manager instead sends SIGTERM to every shard process and waits for them
 * (bot/sharding/shard-launcher.ts). A shard process also shuts down when its manager's IPC
 * channel closes (the manager was killed, even with SIGKILL): a shard must never outlive its
 * manager, or a restarted manager would run it twice.
 */
import type { Logger } from '../../core/logger.ts';

interface Step {
  name: string;
  close: () => Promise<unknown>;
}

/**
 * The closing of everything the process opened, registered in start-up order and run in
 * reverse. Runs once: a second caller (a signal during a failure's exit) waits for the first.
 */
export class ShutdownSteps {
  readonly #logger: Logger;
  readonly #steps: Step[] = [];
  #running: Promise<void> | undefined;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /** Registers how to close something that has just been opened. */
  add(name: string, close: () => unknown): void {
    this.#steps.push({ name, close: () => Promise.resolve().then(close) });
  }

  /** Closes everything, newest first; a step that fails is logged and the rest still run. */
  run(): Promise<void> {
    this.#running ??= this.#runAll();
    return this.#running;
  }

  async #runAll(): Promise<void> {
    for (const step of this.#steps.splice(0).reverse()) {
      await step.close().catch((error: unknown) => {
        this.#logger.debug({ err: error, step: step.name }, 'a shutdown step failed');
      });
    }
  }
}

/** SIGINT and SIGTERM run `shutdown` once, then exit; see the top of this file for the order. */
export function installShutdown(options: {
  logger: Logger;
  shutdown: () => Promise<void>;
  followParent: boolean;
}): void {
  const { logger, shutdown } = options;
  let stopping = false;
  const stop = (signal: NodeJS.Signals | 'parent-gone'): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    shutdown().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  if (options.followParent) {
    // discord.js reports shard events over IPC; once the manager is gone those sends fail.
    process.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ERR_IPC_CHANNEL_CLOSED') throw error;
    });
    process.once('disconnect', () => stop('parent-gone'));
    if (process.connected === false) stop('parent-gone');
  }
}
