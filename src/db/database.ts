import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { drizzle as drizzleNodePg } from 'drizzle-orm/node-postgres';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import pg from 'pg';
import { BotError } from '../core/errors.ts';
import { systemClock, type Clock } from '../core/clock.ts';
import type { ControlBus } from '../core/control-bus.ts';
import type { Logger } from '../core/logger.ts';
import { lockDataDir } from './data-dir-lock.ts';
import { PgliteControlBus } from './control-bus/pglite-control-bus.ts';
import { PostgresControlBus } from './control-bus/postgres-control-bus.ts';
import {
  postgresLiveness,
  singleProcessLiveness,
  type InstanceLiveness,
} from './instance-liveness.ts';
import { applyMigrations } from './migrator.ts';
import { timePgliteQueries, timeQueries, type QueryObserver } from './query-timing.ts';
import * as schema from './schema.ts';

/** The one database type every repository takes: the same code runs on PGlite and PostgreSQL. */
export type Database = PgDatabase<PgQueryResultHKT, typeof schema>;

export interface DatabaseHandle {
  readonly db: Database;
  readonly kind: 'postgres' | 'pglite';
  /** Applies pending migrations from migrations/ (idempotent; serialized across processes). */
  migrate(): Promise<void>;
  /** Which bot processes are running, for recovering the turns of one that died. */
  readonly liveness: InstanceLiveness;
  /**
   * The control bus between the processes on this database, listening once this resolves
   * (PostgreSQL: LISTEN on a dedicated connection; PGlite: in-process). Opened on first use.
   */
  controlBus(): Promise<ControlBus>;
  /** The embedded database's files as a gzipped tarball (PGlite's dumpDataDir; backups). */
  dumpDataDir?(): Promise<Blob>;
  close(): Promise<void>;
}

export type { InstanceLiveness } from './instance-liveness.ts';

export type DatabaseOptions =
  | {
      kind: 'postgres';
      url: string;
      logger: Logger;
      poolSize?: number;
      /** Paces the re-taking of the liveness lock after a lost connection. */
      clock?: Clock;
      /** See LIVENESS_DEFAULTS.peerReconnectGraceMs. */
      peerReconnectGraceMs?: number;
      onQuery?: QueryObserver;
    }
  /** `dataDir` undefined keeps the embedded database in memory (tests). */
  | {
      kind: 'pglite';
      dataDir: string | undefined;
      logger: Logger;
      /** A dumpDataDir tarball to start an empty data directory from (restore). */
      loadDataDir?: Blob;
      onQuery?: QueryObserver;
    };

export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../migrations', import.meta.url));

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

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  return options.kind === 'postgres' ? openPostgres(options) : openPglite(options);
}

function openPostgres(options: {
  url: string;
  logger: Logger;
  poolSize?: number;
  clock?: Clock;
  peerReconnectGraceMs?: number;
  onQuery?: QueryObserver;
}): DatabaseHandle {
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

/**
 * The embedded database lives in the bot's own heap (WebAssembly memory never shrinks):
 * PostgreSQL's default 128 MB of shared buffers is far more cache than a bot's tables need.
 */
const PGLITE_START_PARAMS = [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'];

async function openPglite(options: {
  dataDir: string | undefined;
  logger: Logger;
  loadDataDir?: Blob;
  onQuery?: QueryObserver;
}): Promise<DatabaseHandle> {
  const releaseLock =
    options.dataDir === undefined ? () => Promise.resolve() : await lockDataDir(options.dataDir);
  let client: PGlite;
  try {
    const pgliteOptions = {
      startParams: PGLITE_START_PARAMS,
      // PGlite's options take no explicit undefined: without a tarball the directory starts empty.
      ...(options.loadDataDir === undefined ? {} : { loadDataDir: options.loadDataDir }),
    };
    client =
      options.dataDir === undefined
        ? new PGlite(pgliteOptions)
        : new PGlite(path.resolve(options.dataDir), pgliteOptions);
    await client.waitReady;
    if (options.onQuery !== undefined) timePgliteQueries(client, options.onQuery);
  } catch (error) {
    await releaseLock();
    throw new BotError('database_open', 'could not open the embedded database', { cause: error });
  }
  const db = drizzlePglite({ client, schema });
  const bus = lazily(async () => {
    const opened = new PgliteControlBus({ client, logger: options.logger });
    await opened.listen();
    return opened;
  });
  return {
    db,
    kind: 'pglite',
    async migrate() {
      await applyMigrations(db, MIGRATIONS_FOLDER);
    },
    liveness: singleProcessLiveness(),
    controlBus: () => bus.get(),
    dumpDataDir: () => client.dumpDataDir('gzip'),
    async close() {
      await bus.opened()?.then(
        (opened) => opened.close(),
        () => undefined,
      );
      await client.close();
      await releaseLock();
    },
  };
}

/** One value made on first request; `opened` is its promise once requested. */
function lazily<T>(make: () => Promise<T>): {
  get(): Promise<T>;
  opened(): Promise<T> | undefined;
} {
  let made: Promise<T> | undefined;
  return {
    get: () => (made ??= make()),
    opened: () => made,
  };
}

/** A cheap round trip, for health checks and /doctor. */
export async function pingDatabase(db: Database): Promise<void> {
  await db.execute(sql`select 1`);
}
