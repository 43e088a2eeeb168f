import { sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type { ControlBus } from '../core/control-bus.ts';
import type { Logger } from '../core/logger.ts';
import type { Clock } from '../core/clock.ts';
import { projectPath } from './project-path.ts';
import type { InstanceLiveness } from './instance-liveness.ts';
import type { QueryObserver } from './query-timing.ts';
import type * as schema from './schema.ts';

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
      /** Named prepared statements for the statements built once per shape (default true). */
      preparedStatements?: boolean;
      /** Paces the re-taking of the liveness lock after a lost connection. */
      clock?: Clock;
      /** See LIVENESS_DEFAULTS.peerReconnectGraceMs. */
      peerReconnectGraceMs?: number;
      onQuery?: QueryObserver | undefined;
    }
  /** `dataDir` undefined keeps the embedded database in memory (tests). */
  | {
      kind: 'pglite';
      dataDir: string | undefined;
      logger: Logger;
      /** A dumpDataDir tarball to start an empty data directory from (restore). */
      loadDataDir?: Blob;
      onQuery?: QueryObserver | undefined;
    };

export const MIGRATIONS_FOLDER = projectPath('migrations');

/**
 * Opens the configured database. Each driver (pg, or PGlite with its WebAssembly build) is
 * loaded only when it is the one configured.
 */
export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  if (options.kind === 'postgres') {
    const { openPostgres } = await import('./postgres-database.ts');
    return openPostgres(options);
  }
  const { openPglite } = await import('./pglite-database.ts');
  return openPglite(options);
}

/** A cheap round trip, for health checks and /doctor. */
export async function pingDatabase(db: Database): Promise<void> {
  await db.execute(sql`select 1`);
}
