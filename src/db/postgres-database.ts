/**
 * PostgreSQL through a pg pool: migrations serialized across processes by an advisory lock,
 * liveness locks per process, and the LISTEN/NOTIFY control bus. Loaded only when DATABASE_URL
 * is set (database.ts).
 */
import { drizzle as drizzleNodePg } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { systemClock, type Clock } from '../core/clock.ts';
import { PostgresControlBus } from './control-bus/postgres-control-bus.ts';
import { MIGRATIONS_FOLDER, type DatabaseHandle, type DatabaseOptions } from './database.ts';
import { postgresLiveness } from './instance-liveness.ts';
import { lazily } from './lazily.ts';
import { applyMigrations } from './migrator.ts';
import { timeQueries } from './query-timing.ts';
import * as schema from './schema.ts';
import { nameStatementsOf } from './statement-cache.ts';

/** Any 64-bit constant works; this one is "tomodach" in ASCII. */
const MIGRATION_LOCK_ID = 0x746f6d6f64616368n;
const MIGRATION_LOCK_POLL_MS = 250;

/**
 * Waits for the migration lock by trying it between pauses, not with pg_advisory_lock: a
 * statement waiting for a lock holds a snapshot, and CREATE INDEX CONCURRENTLY in the holder's
 * migration waits for every older snapshot to end, so the two would wait for each other forever.
 */
async function takeMigrationLock(client: pg.PoolClient, clock: Clock): Promise<void> {
  for (;;) {
    const result = await client.query<{ taken: boolean }>(
      'select pg_try_advisory_lock($1) as taken',
      [MIGRATION_LOCK_ID.toString()],
    );
    if (result.rows[0]?.taken === true) return;
    await clock.sleep(MIGRATION_LOCK_POLL_MS);
  }
}

export function openPostgres(
  options: Extract<DatabaseOptions, { kind: 'postgres' }>,
): DatabaseHandle {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize ?? 10,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 10_000,
    application_name: 'tomodachi-bot',
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', (error) => options.logger.warn({ err: error }, 'idle database client failed'));
  // A client lent out (a transaction between its statements, a lock held) whose connection is
  // cut emits 'error' with nothing listening, which would end the process: its next statement
  // fails instead (a transient error, retried), and the pool drops it when it comes back.
  pool.on('connect', (client) => {
    client.on('error', (error) =>
      options.logger.debug({ err: error }, 'a database connection was cut'),
    );
  });
  const { onQuery } = options;
  if (onQuery !== undefined) pool.on('connect', (client) => timeQueries(client, onQuery));
  const db = drizzleNodePg({ client: pool, schema });
  if (options.preparedStatements !== false) nameStatementsOf(db);
  const liveness = postgresLiveness({
    pool,
    connection: { connectionString: options.url, connectionTimeoutMillis: 10_000 },
    logger: options.logger,
    clock: options.clock,
    peerReconnectGraceMs: options.peerReconnectGraceMs,
  });
  const bus = lazily(async () => {
    const opened = new PostgresControlBus({
      pool,
      connection: { connectionString: options.url, connectionTimeoutMillis: 10_000 },
      logger: options.logger,
      clock: options.clock ?? systemClock,
    });
    await opened.listen();
    return opened;
  });
  return {
    db,
    kind: 'postgres',
    async migrate() {
      const lockClient = await pool.connect();
      try {
        // Two processes starting together must not both apply the same migration.
        await takeMigrationLock(lockClient, options.clock ?? systemClock);
        await applyMigrations(db, MIGRATIONS_FOLDER);
      } finally {
        await lockClient
          .query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_ID.toString()])
          .catch(() => undefined);
        lockClient.release();
      }
    },
    liveness,
    controlBus: () => bus.get(),
    async close() {
      await bus.opened()?.then(
        (opened) => opened.close(),
        () => undefined,
      );
      await liveness.close();
      await pool.end();
    },
  };
}
