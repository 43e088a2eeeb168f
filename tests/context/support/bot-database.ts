import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * With TEST_DATABASE_URL set, a fresh PostgreSQL database for a bot process (its DATABASE_URL)
 * and how to drop it; without, the bot's embedded database (empty env).
 */
export async function botDatabase(): Promise<{
  env: Record<string, string>;
  drop(): Promise<void>;
}> {
  const serverUrl = process.env['TEST_DATABASE_URL'];
  if (serverUrl === undefined || serverUrl === '')
    return { env: {}, drop: () => Promise.resolve() };
  const name = `tomodachi_e2e_${randomBytes(6).toString('hex')}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    // A shared database needs a shared key (any 32 bytes for a test).
    env: { DATABASE_URL: url.toString(), BOT_ENCRYPTION_KEY: randomBytes(32).toString('base64') },
    drop: () => admin(`drop database if exists ${name} with (force)`),
  };
}
