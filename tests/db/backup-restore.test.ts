import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/logger.ts';
import { backupKind, createBackup, restoreBackup } from '../../src/db/backup/backup.ts';
import { exportLogical, importLogical } from '../../src/db/backup/logical-backup.ts';
import { openDatabase, type Database } from '../../src/db/database.ts';
import { addMemory } from '../../src/db/memory-repository.ts';
import { loadScopeSettings, updateScopeSettings } from '../../src/db/scope-settings-repository.ts';
import { recordUserTurn } from '../../src/db/turn-repository.ts';
import { testBackends, type TestDatabase } from '../support/test-database.ts';

const GUILD = { id: '123456789012345678', kind: 'guild' as const };
const PERSONA = 'You are Mika, who loves astronomy.';

/** A little of everything: settings with arrays and jsonb, a memory, a conversation turn. */
async function populate(db: Database): Promise<void> {
  await updateScopeSettings(db, GUILD, {
    personaName: 'Mika',
    personaInstructions: PERSONA,
    triggerWords: ['mika', 'c++'],
    featureFlags: { 'tools.fetch_url': true },
  });
  await addMemory(db, {
    scope: GUILD,
    owner: { kind: 'user', ownerId: '223456789012345678' },
    authorId: '223456789012345678',
    content: 'Prefers tea over coffee',
    limit: 50,
  });
  await recordUserTurn(db, {
    id: randomUUID(),
    scopeId: GUILD.id,
    channelId: '323456789012345678',
    authorId: '223456789012345678',
    authorName: 'alice',
    messageId: '423456789012345678',
    content: 'what is a pulsar? 🌌',
  });
}

/** Every row of every table, as PostgreSQL renders it, table by table. */
async function contents(database: TestDatabase): Promise<Record<string, unknown[]>> {
  const tables = await database.rawQuery(
    sql`select tablename from pg_tables where schemaname = 'public' order by tablename`,
  );
  const result: Record<string, unknown[]> = {};
  for (const { tablename } of tables) {
    const rows = await database.rawQuery(
      sql`select row_to_json(t)::text as row from ${sql.identifier(String(tablename))} t`,
    );
    result[String(tablename)] = rows.map((row) => String(row.row)).sort();
  }
  return result;
}

/** exportLogical's output as lines (a test database is small). */
async function exportLines(db: Database): Promise<string[]> {
  let text = '';
  await exportLogical(db, (chunk) => {
    text += chunk;
    return Promise.resolve();
  });
  return text.split('\n').filter((line) => line !== '');
}

describe.each(testBackends())('logical backup on $name', (backend) => {
  let source: TestDatabase;
  let target: TestDatabase;

  beforeAll(async () => {
    [source, target] = await Promise.all([backend.open(), backend.open()]);
    await Promise.all([source.migrate(), target.migrate()]);
    await populate(source.db);
  });
  afterAll(() => Promise.all([source?.dispose(), target?.dispose()]));

  it('round-trips every row of every table into an empty database', async () => {
    const lines = await exportLines(source.db);
    expect(await importLogical(target.db, lines)).toBe(lines.length - 1);
    expect(await contents(target)).toEqual(await contents(source));
    expect((await loadScopeSettings(target.db, GUILD.id)).personaInstructions).toBe(PERSONA);
  });

  it('refuses to restore into a database that already holds data', async () => {
    const lines = await exportLines(source.db);
    await expect(importLogical(target.db, lines)).rejects.toThrow(/already holds data/);
  });
});

describe('embedded database archive (PGlite dumpDataDir)', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'backup-test-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('restores into an empty data directory, and refuses a non-empty one', async () => {
    const original = path.join(root, 'original', 'pglite');
    const source = await openDatabase({ kind: 'pglite', dataDir: original, logger: silentLogger });
    try {
      await source.migrate();
      await populate(source.db);
    } finally {
      await source.close();
    }
    const file = path.join(root, 'bot.tar.gz');
    const backup = await createBackup({
      target: { kind: 'pglite', dataDir: original },
      logical: false,
      file,
      logger: silentLogger,
    });
    expect(backup.kind).toBe('pglite-archive');
    expect(await backupKind(file)).toBe('pglite-archive');

    const restoredDir = path.join(root, 'restored', 'pglite');
    const target = { kind: 'pglite' as const, dataDir: restoredDir };
    await restoreBackup({ target, file, logger: silentLogger });
    const restored = await openDatabase({
      kind: 'pglite',
      dataDir: restoredDir,
      logger: silentLogger,
    });
    try {
      expect((await loadScopeSettings(restored.db, GUILD.id)).personaInstructions).toBe(PERSONA);
    } finally {
      await restored.close();
    }
    await expect(restoreBackup({ target, file, logger: silentLogger })).rejects.toThrow(
      /is not empty/,
    );
  }, 180_000);
});

/** A backup file written by the exporter before it streamed (same format, version 1). */
const PREVIOUS_VERSION_BACKUP = fileURLToPath(
  new URL('fixtures/logical-backup-v1.jsonl.gz', import.meta.url),
);
const SERVER_URL = process.env.TEST_DATABASE_URL;

/** A PostgreSQL database of its own, dropped when the test ends. */
async function privateDatabase(serverUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `backup_test_${randomUUID().replaceAll('-', '')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const dropper = new pg.Client({ connectionString: serverUrl });
      await dropper.connect();
      try {
        await dropper.query(`drop database if exists ${name} with (force)`);
      } finally {
        await dropper.end();
      }
    },
  };
}

async function query(url: string, text: string): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Record<string, unknown>>(text)).rows;
  } finally {
    await client.end();
  }
}

describe('logical backup files (npm run backup / restore)', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'logical-backup-test-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('names a missing file, and refuses a file that is not a backup', async () => {
    const target = { kind: 'pglite' as const, dataDir: path.join(root, 'never', 'pglite') };
    const missing = path.join(root, 'missing.jsonl.gz');
    await expect(restoreBackup({ target, file: missing, logger: silentLogger })).rejects.toThrow(
      `no such file or directory, open '${missing}'`,
    );
    const text = path.join(root, 'notes.txt');
    writeFileSync(text, 'not a backup');
    await expect(restoreBackup({ target, file: text, logger: silentLogger })).rejects.toThrow(
      'not a backup file (not gzip-compressed)',
    );
    expect(existsSync(target.dataDir)).toBe(false);
  });

  it('restores a backup written by the previous version into an empty data directory', async () => {
    const dataDir = path.join(root, 'from-previous', 'pglite');
    const restored = await restoreBackup({
      target: { kind: 'pglite', dataDir },
      file: PREVIOUS_VERSION_BACKUP,
      logger: silentLogger,
    });
    expect(restored).toEqual({ kind: 'logical', rows: 4 });
    const handle = await openDatabase({ kind: 'pglite', dataDir, logger: silentLogger });
    try {
      expect((await loadScopeSettings(handle.db, GUILD.id)).personaInstructions).toBe(PERSONA);
    } finally {
      await handle.close();
    }
  }, 300_000);

  it('writes a file that restores into an empty data directory', async () => {
    const source = path.join(root, 'source', 'pglite');
    const handle = await openDatabase({ kind: 'pglite', dataDir: source, logger: silentLogger });
    try {
      await handle.migrate();
      await populate(handle.db);
    } finally {
      await handle.close();
    }
    const file = path.join(root, 'bot.jsonl.gz');
    const target = { kind: 'pglite' as const, dataDir: source };
    const written = await createBackup({ target, logical: true, file, logger: silentLogger });
    expect(written.kind).toBe('logical');
    expect(existsSync(`${file}.partial`)).toBe(false);
    const restored = await restoreBackup({
      target: { kind: 'pglite', dataDir: path.join(root, 'copy', 'pglite') },
      file,
      logger: silentLogger,
    });
    expect(restored).toEqual({ kind: 'logical', rows: 4 });
  }, 300_000);

  it.skipIf(SERVER_URL === undefined)(
    'restores a backup written by the previous version into an empty PostgreSQL database',
    async () => {
      const database = await privateDatabase(SERVER_URL!);
      try {
        const target = { kind: 'postgres' as const, url: database.url };
        const restored = await restoreBackup({
          target,
          file: PREVIOUS_VERSION_BACKUP,
          logger: silentLogger,
        });
        expect(restored).toEqual({ kind: 'logical', rows: 4 });
        const [settings] = await query(
          database.url,
          'select persona_instructions from scope_settings',
        );
        expect(settings?.persona_instructions).toBe(PERSONA);
      } finally {
        await database.drop();
      }
    },
    120_000,
  );

  it.skipIf(SERVER_URL === undefined)(
    'refuses a PostgreSQL database that holds data before migrating it',
    async () => {
      const database = await privateDatabase(SERVER_URL!);
      try {
        await query(database.url, 'create table notes (body text); insert into notes values (1)');
        await expect(
          restoreBackup({
            target: { kind: 'postgres', url: database.url },
            file: PREVIOUS_VERSION_BACKUP,
            logger: silentLogger,
          }),
        ).rejects.toThrow(/already holds data \(notes\)/);
        const [left] = await query(
          database.url,
          `select to_regclass('drizzle.__drizzle_migrations')::text as migrations,
                  to_regclass('public.conversation_turns')::text as turns`,
        );
        expect(left).toEqual({ migrations: null, turns: null });
      } finally {
        await database.drop();
      }
    },
    120_000,
  );
});
