/**
 * The database a bot process under test runs on: the embedded PGlite in its DATA_DIR (the
 * default), or a fresh database on the PostgreSQL server of TEST_DATABASE_URL, dropped at the
 * end. Which one the bot end-to-end files use is chosen by the vitest project they run in
 * (`E2E_DATABASE=postgres`, see vitest.config.ts), so every such file runs on both without
 * saying so.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { silentLogger } from '../../src/core/logger.ts';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.ts';

export type BotDatabaseKind = 'pglite' | 'postgres';

export interface BotDatabase {
  readonly kind: BotDatabaseKind;
  /** What the bot process gets: DATABASE_URL and BOT_ENCRYPTION_KEY, or nothing (PGlite). */
  readonly environment: Record<string, string>;
  /** Opens the database while no bot runs on it (PGlite) or beside it (PostgreSQL), migrated. */
  open(): Promise<DatabaseHandle>;
  /** Drops the server database (PGlite's lives in DATA_DIR, removed with it). */
  dispose(): Promise<void>;
}

/** The kind the bot end-to-end files run on in this vitest project. */
export function e2eDatabaseKind(): BotDatabaseKind {
  return process.env.E2E_DATABASE === 'postgres' ? 'postgres' : 'pglite';
}

/** The URL of the PostgreSQL server tests may create databases on, if there is one. */
export function testServerUrl(): string | undefined {
  const url = process.env.TEST_DATABASE_URL;
  return url === undefined || url === '' ? undefined : url;
}

/**
 * A bot database of `kind`; for PGlite it lives in `dataDir`; on PostgreSQL it is created on
 * `serverUrl` (a test's own cluster) or else on the TEST_DATABASE_URL server.
 */
export async function createBotDatabase(options: {
  kind: BotDatabaseKind;
  dataDir: string;
  serverUrl?: string;
}): Promise<BotDatabase> {
  if (options.kind === 'pglite') return pgliteDatabase(options.dataDir);
  const serverUrl = options.serverUrl ?? testServerUrl();
  if (serverUrl === undefined) throw new Error('E2E_DATABASE=postgres needs TEST_DATABASE_URL');
  return createServerDatabase(serverUrl);
}

function pgliteDatabase(dataDir: string): BotDatabase {
  return {
    kind: 'pglite',
    environment: {},
    open: () =>
      migrated(
        openDatabase({
          kind: 'pglite',
          dataDir: path.join(dataDir, 'pglite'),
          logger: silentLogger,
        }),
      ),
    dispose: () => Promise.resolve(),
  };
}

/** A fresh database on the server, shared by every process given its environment. */
export async function createServerDatabase(serverUrl: string): Promise<BotDatabase> {
  const name = `tomodachi_e2e_${randomBytes(6).toString('hex')}`;
  await withAdmin(serverUrl, (admin) => admin.query(`create database ${name}`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();
  return {
    kind: 'postgres',
    // One key for every process on this database, as the operator would configure.
    environment: {
      DATABASE_URL: databaseUrl,
      BOT_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    },
    open: () =>
      migrated(
        openDatabase({ kind: 'postgres', url: databaseUrl, logger: silentLogger, poolSize: 2 }),
      ),
    dispose: () =>
      withAdmin(serverUrl, (admin) => admin.query(`drop database if exists ${name} with (force)`)),
  };
}

async function migrated(opening: Promise<DatabaseHandle>): Promise<DatabaseHandle> {
  const handle = await opening;
  try {
    await handle.migrate();
  } catch (error) {
    await handle.close();
    throw error;
  }
  return handle;
}

async function withAdmin(
  serverUrl: string,
  action: (client: pg.Client) => Promise<unknown>,
): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await action(client);
  } finally {
    await client.end();
  }
}
