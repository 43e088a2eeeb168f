import type { Config } from '../config/config.ts';
import type { Logger } from '../../core/logger.ts';
import type { DatabaseHandle } from '../../db/database.ts';
import type { SecretBox } from '../../security/secret-box.ts';
import type { ShutdownSteps } from './shutdown.ts';

/** Housekeeping: fail turns of processes that died, forget old message claims. */
const MAINTENANCE_INTERVAL_MS = 60_000;
const CLAIM_RETENTION_MS = 24 * 60 * 60_000;

/**
 * Runs the housekeeping once a minute, then `afterEach` (unanswered recovery); the timer does
 * not hold the process open and is cleared at shutdown.
 */
export function scheduleMaintenance(options: {
  database: DatabaseHandle;
  logger: Logger;
  shutdown: ShutdownSteps;
  afterEach: () => Promise<void>;
}): void {
  const maintenance = setInterval(() => {
    void runMaintenance(options.database, options.logger).then(options.afterEach);
  }, MAINTENANCE_INTERVAL_MS);
  maintenance.unref();
  options.shutdown.add('maintenance', () => clearInterval(maintenance));
}

async function runMaintenance(database: DatabaseHandle, logger: Logger): Promise<void> {
  try {
    const { failAbandonedTurns } = await import('../../db/turn-recovery.ts');
    const { pruneClaims } = await import('../../db/claim-repository.ts');
    const { pruneMemberTurns } = await import('../../db/member-turn-repository.ts');
    const failed = await failAbandonedTurns(database.db, database.liveness);
    if (failed > 0) logger.warn({ turns: failed }, 'failed turns of a process that stopped');
    await pruneClaims(database.db, new Date(Date.now() - CLAIM_RETENTION_MS));
    // Far outside the one-minute rate window, with room for clocks that disagree.
    await pruneMemberTurns(database.db, new Date(Date.now() - CLAIM_RETENTION_MS));
  } catch (error) {
    logger.warn({ err: error }, 'maintenance failed');
  }
}

/** After a key rotation: stored API keys move to the current key while the bot runs. */
export async function resealInBackground(options: {
  database: DatabaseHandle;
  secretBox: SecretBox;
  config: Config;
  logger: Logger;
  shutdown: ShutdownSteps;
}): Promise<void> {
  const { logger } = options;
  const { resealApiKeys } = await import('../../db/api-key-reseal.ts');
  const stop = new AbortController();
  options.shutdown.add('key resealing', () => stop.abort());
  resealApiKeys({
    db: options.database.db,
    box: options.secretBox,
    defaultProvider: options.config.defaultProvider,
    logger,
    signal: stop.signal,
  }).catch((error: unknown) => {
    if (!stop.signal.aborted)
      logger.warn({ err: error }, 'resealing stored API keys failed; it runs again at next start');
  });
}
