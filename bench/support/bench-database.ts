/**
 * The database the bot bench runs on: the embedded PGlite in a temporary directory (the bot's
 * default), or, when BENCH_DATABASE_URL names a PostgreSQL server, a fresh database created on
 * it for this run and dropped afterwards — the server's other databases are never touched.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import type { BenchDatabase } from './loopback-protocol.ts';

export interface PreparedDatabase {
  database: BenchDatabase;
  label: 'PGlite' | 'PostgreSQL';
  /** PostgreSQL: the server processes (backends) serving this database now; PGlite: none. */
  serverProcessIds(): Promise<number[]>;
  /**
   * PostgreSQL: transactions committed or rolled back in this database so far (a statement
   * outside BEGIN is one). A backend reports them when it goes idle for a while or exits, so
   * read this after the bot processes have stopped. PGlite: NaN.
   */
  transactions(): Promise<number>;
  dispose(): Promise<void>;
}

export async function prepareBenchDatabase(dataDir: string): Promise<PreparedDatabase> {
  const serverUrl = process.env['BENCH_DATABASE_URL'];
  if (serverUrl === undefined || serverUrl === '') {
    return {
      database: { kind: 'pglite', dataDir: path.join(dataDir, 'pglite') },
      label: 'PGlite',
      serverProcessIds: () => Promise.resolve([]),
      transactions: () => Promise.resolve(Number.NaN),
      dispose: () => Promise.resolve(),
    };
  }
  const name = `tomodachi_bench_${randomBytes(6).toString('hex')}`;
  await withServer(serverUrl, (client) => client.query(`create database ${name}`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    database: { kind: 'postgres', url: url.toString() },
    label: 'PostgreSQL',
    async serverProcessIds() {
      const result = await withServer(serverUrl, (client) =>
        client.query<{ pid: number }>(
          'select pid from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
          [name],
        ),
      );
      return result.rows.map((row) => row.pid);
    },
    async transactions() {
      const result = await withServer(serverUrl, (client) =>
        client.query<{ count: string }>(
          'select xact_commit + xact_rollback as count from pg_stat_database where datname = $1',
          [name],
        ),
      );
      return Number(result.rows[0]?.count ?? Number.NaN);
    },
    async dispose() {
      await withServer(serverUrl, (client) =>
        client.query(`drop database if exists ${name} with (force)`),
      );
    },
  };
}

async function withServer<T>(serverUrl: string, action: (client: pg.Client) => Promise<T>) {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await action(client);
  } finally {
    await client.end();
  }
}
