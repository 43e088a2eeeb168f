import type { Logger } from '../../core/logger.ts';

/**
 * SIGINT and SIGTERM run `shutdown` once, then exit 0 (1 if it failed). A shard child also
 * stops when its manager's IPC channel closes (the manager was killed, even with SIGKILL): a
 * shard must never outlive its manager, or a restarted manager would run it twice.
 */
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
