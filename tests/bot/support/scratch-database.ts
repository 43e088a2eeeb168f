import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** A database for one bot process: on TEST_DATABASE_URL's server when set, else none (PGlite). */
export interface ScratchDatabase {
  /** DATABASE_URL for the bot, or undefined for the embedded database. */
  url: string | undefined;
  drop(): Promise<void>;
}

/**
 * An empty PostgreSQL database of its own when TEST_DATABASE_URL is set — the bot then starts
 * without creating an embedded cluster, which matters on a busy machine — or nothing, and the
 * bot uses PGlite in its DATA_DIR.
 */
export async function scratchDatabase(): Promise<ScratchDatabase> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) return { url: undefined, drop: () => Promise.resolve() };
  const name = `tomodachi_gateway_${randomBytes(6).toString('hex')}`;
  await admin(serverUrl, `create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => admin(serverUrl, `drop database if exists ${name} with (force)`),
  };
}

async function admin(serverUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
