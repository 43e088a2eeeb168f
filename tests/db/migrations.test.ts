import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { migrate as migrateNodePg } from 'drizzle-orm/node-postgres/migrator';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { MIGRATIONS_FOLDER, openDatabase } from '../../src/db/database.ts';
import { silentLogger } from '../../src/core/logger.ts';
import { applyMigrations, NO_TRANSACTION_MARKER } from '../../src/db/migrator.ts';
import { testBackends, type TestDatabase } from '../support/test-database.ts';

// Each test opens a fresh database (PGlite: seconds on a busy machine) and migrates it.
describe.each(testBackends())('migrations on $name', { timeout: 60_000 }, (backend) => {
  let database: TestDatabase | undefined;
  afterEach(async () => {
    await database?.dispose();
    database = undefined;
  });

  it('apply cleanly twice in a row and create every table', async () => {
    database = await backend.open();
    await database.migrate();
    await database.migrate();
    const tables = await database.rawQuery(
      sql`select table_name from information_schema.tables where table_schema = 'public' order by table_name`,
    );
    expect(tables.map((row) => row.table_name)).toEqual([
      'bot_state',
      'channel_settings',
      'channel_summaries',
      'character_daily_usage',
      'character_messages',
      'characters',
      'conversation_turns',
      'member_daily_usage',
      'member_turns',
      'memories',
      'message_claims',
      'reminders',
      'reset_markers',
      'scene_characters',
      'scope_daily_usage',
      'scope_settings',
      'scopes',
      'tool_calls',
    ]);
    const applied = await database.rawQuery(
      sql`select count(*)::int as count from drizzle.__drizzle_migrations`,
    );
    expect(applied[0]?.count).toBeGreaterThan(0);
    const again = await database.rawQuery(
      sql`select count(*)::int as count from drizzle.__drizzle_migrations`,
    );
    expect(again[0]?.count).toBe(applied[0]?.count);
  });

  it('stores Discord snowflakes as text, never as numbers', async () => {
    database = await backend.open();
    await database.migrate();
    const columns = await database.rawQuery(
      sql`select table_name, column_name, data_type from information_schema.columns
          where table_schema = 'public' and (column_name like '%\_id' or column_name = 'id')`,
    );
    const numeric = columns.filter(
      (column) => !['text', 'uuid', 'ARRAY'].includes(String(column.data_type)),
    );
    expect(numeric).toEqual([]);
  });
});

/** A copy of migrations/ holding its first `count` migrations, plus `extra` SQL files. */
function migrationsFolder(
  root: string,
  options: { count: number; extra?: Array<{ tag: string; sql: string }> },
): string {
  const folder = mkdtempSync(path.join(root, 'migrations-'));
  mkdirSync(path.join(folder, 'meta'));
  const journal = JSON.parse(
    readFileSync(path.join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8'),
  ) as { entries: Array<{ idx: number; tag: string; when: number }> };
  const entries = journal.entries.slice(0, options.count);
  for (const entry of entries)
    copyFileSync(
      path.join(MIGRATIONS_FOLDER, `${entry.tag}.sql`),
      path.join(folder, `${entry.tag}.sql`),
    );
  let when = journal.entries.at(-1)!.when;
  for (const extra of options.extra ?? []) {
    when += 1000;
    entries.push({ ...entries.at(-1)!, idx: entries.length, tag: extra.tag, when });
    writeFileSync(path.join(folder, `${extra.tag}.sql`), extra.sql);
  }
  writeFileSync(
    path.join(folder, 'meta', '_journal.json'),
    JSON.stringify({ ...journal, entries }),
  );
  return folder;
}

function drizzleMigrate(database: TestDatabase, folder: string): Promise<void> {
  return database.kind === 'pglite'
    ? migratePglite(database.db as never, { migrationsFolder: folder })
    : migrateNodePg(database.db as never, { migrationsFolder: folder });
}

describe.each(testBackends())('the migrator on $name', { timeout: 60_000 }, (backend) => {
  const root = mkdtempSync(path.join(tmpdir(), 'migrator-test-'));
  let database: TestDatabase | undefined;
  afterEach(async () => {
    await database?.dispose();
    database = undefined;
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("upgrades a database that drizzle's own migrator brought to an older version", async () => {
    database = await backend.open();
    await drizzleMigrate(database, migrationsFolder(root, { count: 5 }));
    expect(await applyMigrations(database.db, MIGRATIONS_FOLDER)).toBe(
      readMigrationFiles({ migrationsFolder: MIGRATIONS_FOLDER }).length - 5,
    );
    const applied = await database.rawQuery(
      sql`select count(*)::int as count, count(distinct hash)::int as distinct from drizzle.__drizzle_migrations`,
    );
    const all = readMigrationFiles({ migrationsFolder: MIGRATIONS_FOLDER }).length;
    expect(applied[0]).toEqual({ count: all, distinct: all });
    expect(await applyMigrations(database.db, MIGRATIONS_FOLDER)).toBe(0);
  });

  it('finishes a no-transaction migration that an earlier start cut off half-way', async () => {
    database = await backend.open();
    await applyMigrations(database.db, migrationsFolder(root, { count: 5 }));
    const context = readMigrationFiles({ migrationsFolder: MIGRATIONS_FOLDER })[5]!;
    expect(context.sql[0]).toContain(NO_TRANSACTION_MARKER);
    // The process died after the CHECK was added NOT VALID, before it was validated.
    for (const statement of context.sql.slice(0, -1)) await database.db.execute(sql.raw(statement));
    await applyMigrations(database.db, MIGRATIONS_FOLDER);
    const check = await database.rawQuery(
      sql`select convalidated as valid from pg_constraint where conname = 'conversation_turns_importance_check'`,
    );
    expect(check).toEqual([{ valid: true }]);
    const indexes = await database.rawQuery(
      sql`select c.relname as name, i.indisvalid as valid from pg_index i
          join pg_class c on c.oid = i.indexrelid
          where c.relname in ('conversation_turns_important_idx', 'conversation_turns_pinned_idx')
          order by c.relname`,
    );
    expect(indexes).toEqual([
      { name: 'conversation_turns_important_idx', valid: true },
      { name: 'conversation_turns_pinned_idx', valid: true },
    ]);
  });

  it('finishes 0012 (character memories) after a start cut off before its validations', async () => {
    database = await backend.open();
    await applyMigrations(database.db, migrationsFolder(root, { count: 12 }));
    const memories = readMigrationFiles({ migrationsFolder: MIGRATIONS_FOLDER })[12]!;
    expect(memories.sql[0]).toContain(NO_TRANSACTION_MARKER);
    // The process died with both constraints added NOT VALID, neither validated yet.
    for (const statement of memories.sql) {
      if (!statement.includes('VALIDATE')) await database.db.execute(sql.raw(statement));
    }
    await applyMigrations(database.db, MIGRATIONS_FOLDER);
    const constraints = await database.rawQuery(
      sql`select conname as name, convalidated as valid from pg_constraint
          where conname in ('memories_character_id_characters_id_fk', 'memories_character_check')
          order by conname`,
    );
    expect(constraints).toEqual([
      { name: 'memories_character_check', valid: true },
      { name: 'memories_character_id_characters_id_fk', valid: true },
    ]);
    const columns = await database.rawQuery(
      sql`select table_name as table from information_schema.columns
          where column_name = 'character_id' and table_name in ('memories', 'conversation_turns')
          order by table_name`,
    );
    expect(columns.map((row) => row.table)).toEqual(['conversation_turns', 'memories']);
  });

  it('builds an index CONCURRENTLY in a migration marked to run outside a transaction', async () => {
    database = await backend.open();
    const folder = migrationsFolder(root, {
      count: Number.POSITIVE_INFINITY,
      extra: [
        {
          tag: '9000_concurrent_index',
          sql: `${NO_TRANSACTION_MARKER}
DROP INDEX CONCURRENTLY IF EXISTS "conversation_turns_author_idx";--> statement-breakpoint
CREATE INDEX CONCURRENTLY "conversation_turns_author_idx" ON "conversation_turns" ("author_id");`,
        },
      ],
    });
    await applyMigrations(database.db, folder);
    const index = await database.rawQuery(
      sql`select i.indisvalid as valid from pg_index i join pg_class c on c.oid = i.indexrelid
          where c.relname = 'conversation_turns_author_idx'`,
    );
    expect(index).toEqual([{ valid: true }]);
  });
});

const SERVER_URL = process.env.TEST_DATABASE_URL;

async function onServer(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: SERVER_URL });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

describe.skipIf(SERVER_URL === undefined)(
  'migrations from two processes starting together on PostgreSQL',
  { timeout: 120_000 },
  () => {
    it('both finish while one builds an index CONCURRENTLY and the other waits its turn', async () => {
      const name = `migrator_test_${randomBytes(6).toString('hex')}`;
      await onServer(`create database ${name}`);
      const url = new URL(SERVER_URL!);
      url.pathname = `/${name}`;
      const open = () =>
        openDatabase({ kind: 'postgres', url: url.toString(), logger: silentLogger, poolSize: 2 });
      const [first, second] = await Promise.all([open(), open()]);
      try {
        // A waiter holding a snapshot would stall CREATE INDEX CONCURRENTLY until the
        // migration it waits for ends: neither would ever finish.
        await Promise.all([first.migrate(), second.migrate()]);
        const applied: unknown = await first.db.execute(
          sql`select count(*)::int as count from drizzle.__drizzle_migrations`,
        );
        expect((applied as { rows: Array<{ count: number }> }).rows[0]?.count).toBe(
          readMigrationFiles({ migrationsFolder: MIGRATIONS_FOLDER }).length,
        );
      } finally {
        await Promise.all([first.close(), second.close()]);
        await onServer(`drop database if exists ${name} with (force)`);
      }
    });
  },
);
