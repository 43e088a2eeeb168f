import type { Config } from '../config/config.ts';
import type { ControlBus } from '../../core/control-bus.ts';
import type { Logger } from '../../core/logger.ts';
import { noMetrics, type BotMetrics } from '../../core/metrics.ts';
import type { Database, DatabaseHandle, DatabaseOptions } from '../../db/database.ts';
import type { SecretBox } from '../../security/secret-box.ts';
import type { ShutdownSteps } from './shutdown.ts';

export interface OpenedDatabase {
  database: DatabaseHandle;
  secretBox: SecretBox;
  pingDatabase: (db: Database) => Promise<void>;
}

/** The `database` phase: the encryption key, then the configured database, opened and pinged. */
export async function openDatabasePhase(options: {
  config: Config;
  logger: Logger;
  metrics: BotMetrics;
  shutdown: ShutdownSteps;
}): Promise<OpenedDatabase> {
  const { config, logger } = options;
  const { openDatabase, pingDatabase } = await import('../../db/database.ts');
  const { resolveEncryptionKey } = await import('../../security/encryption-key.ts');
  const { SecretBox } = await import('../../security/secret-box.ts');
  const secretBox = new SecretBox(
    resolveEncryptionKey({ configured: config.encryptionKey, dataDir: config.dataDir, logger }),
    config.previousEncryptionKeys,
  );
  const database = await openConfiguredDatabase({ ...options, openDatabase });
  options.shutdown.add('database', () => database.close());
  await pingDatabase(database.db);
  return { database, secretBox, pingDatabase };
}

/**
 * The `migrations` phase: migrate, hold this process's liveness lock, fail the turns left
 * streaming by a process that stopped, and open the control bus.
 */
export async function migrationsPhase(options: {
  database: DatabaseHandle;
  instanceId: string;
  logger: Logger;
  shutdown: ShutdownSteps;
}): Promise<ControlBus> {
  const { database, logger } = options;
  const { failAbandonedTurns } = await import('../../db/turn-recovery.ts');
  await database.migrate();
  const releaseLiveness = await database.liveness.hold(options.instanceId);
  options.shutdown.add('liveness lock', releaseLiveness);
  const abandoned = await failAbandonedTurns(database.db, database.liveness);
  if (abandoned > 0)
    logger.warn({ turns: abandoned }, 'marked turns left streaming by a stopped process as failed');
  // Listening before login: a stop for a reply this process streams is never missed.
  return database.controlBus();
}

async function openConfiguredDatabase(options: {
  config: Config;
  logger: Logger;
  metrics: BotMetrics;
  openDatabase: (options: DatabaseOptions) => Promise<DatabaseHandle>;
}): Promise<DatabaseHandle> {
  const { config, logger, metrics, openDatabase } = options;
  // Unmeasured queries are not timed at all.
  const onQuery = metrics === noMetrics ? undefined : metrics.databaseQuery.bind(metrics);
  if (config.databaseUrl !== undefined) {
    return openDatabase({
      kind: 'postgres',
      url: config.databaseUrl,
      logger,
      onQuery,
      preparedStatements: config.databasePreparedStatements,
    });
  }
  logger.info(
    { dataDir: config.dataDir },
    'using the embedded database (set DATABASE_URL for PostgreSQL)',
  );
  return openDatabase({ kind: 'pglite', dataDir: `${config.dataDir}/pglite`, logger, onQuery });
}
