import { randomBytes } from 'node:crypto';
import type { SQL } from 'drizzle-orm';
import pg from 'pg';
import { silentLogger, type Logger } from '../../src/core/logger.ts';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.ts';
import type { QueryObserver } from '../../src/db/query-timing.ts';

/** A database backend the suite runs against. */
export interface TestBackend {
  name: 'pglite' | 'postgres';
  /**
   * A fresh, empty, isolated database (not yet migrated); it logs to `logger` (silent).
   * `onQuery` is told about every statement the driver runs (transaction control included):
   * tests that count round trips.
   */
  open(options?: TestDatabaseOptions): Promise<TestDatabase>;
}

export interface TestDatabaseOptions {
  logger?: Logger;
  onQuery?: QueryObserver;
  /** PostgreSQL: named prepared statements (default, as DATABASE_PREPARED_STATEMENTS). */
  preparedStatements?: boolean;
}

export interface TestDatabase extends DatabaseHandle {
  /** Closes the handle and deletes the database. */
  dispose(): Promise<void>;
  /** PostgreSQL: the database's URL (another handle on it); undefined for PGlite. */
  url?: string;
  /** Runs raw SQL, bypassing the repositories (to inspect what is really stored). */
  rawQuery(query: SQL): Promise<Record<string, unknown>[]>;
}

const pgliteBackend: TestBackend = {
  name: 'pglite',
  async open(options = {}) {
    const handle = await openDatabase({
      kind: 'pglite',
      dataDir: undefined,
      logger: options.logger ?? silentLogger,
      ...(options.onQuery === undefined ? {} : { onQuery: options.onQuery }),
    });
    return {
      ...handle,
      dispose: () => handle.close(),
      rawQuery: (query) => rawQuery(handle, query),
    };
  },
};

function postgresBackend(serverUrl: string): TestBackend {
  return {
    name: 'postgres',
    async open(options = {}) {
      const name = `tomodachi_test_${randomBytes(6).toString('hex')}`;
      await withAdmin(serverUrl, (admin) => admin.query(`create database ${name}`));
      const url = new URL(serverUrl);
      url.pathname = `/${name}`;
      const handle = await openDatabase({
        kind: 'postgres',
        url: url.toString(),
        logger: options.logger ?? silentLogger,
        poolSize: 4,
        preparedStatements: options.preparedStatements ?? true,
        ...(options.onQuery === undefined ? {} : { onQuery: options.onQuery }),
      });
      return {
        ...handle,
        url: url.toString(),
        async dispose() {
          await handle.close();
          await withAdmin(serverUrl, (admin) =>
            admin.query(`drop database if exists ${name} with (force)`),
          );
        },
        rawQuery: (query) => rawQuery(handle, query),
      };
    },
  };
}

async function rawQuery(handle: DatabaseHandle, query: SQL): Promise<Record<string, unknown>[]> {
  const result: unknown = await handle.db.execute(query);
  return (result as { rows: Record<string, unknown>[] }).rows;
}

async function withAdmin<T>(
  serverUrl: string,
  action: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await action(client);
  } finally {
    await client.end();
  }
}

/**
 * The backends the database suite runs on: always the embedded PGlite, plus a real PostgreSQL
 * server when TEST_DATABASE_URL is set (CI sets it).
 */
export function testBackends(): TestBackend[] {
  const serverUrl = process.env.TEST_DATABASE_URL;
  return serverUrl ? [pgliteBackend, postgresBackend(serverUrl)] : [pgliteBackend];
}
