import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/logger.ts';
import { createBackup, restoreBackup } from '../../src/db/backup/backup.ts';
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
    const lines = await exportLogical(source.db);
    expect(await importLogical(target.db, lines)).toBe(lines.length - 1);
    expect(await contents(target)).toEqual(await contents(source));
    expect((await loadScopeSettings(target.db, GUILD.id)).personaInstructions).toBe(PERSONA);
  });

  it('refuses to restore into a database that already holds data', async () => {
    const lines = await exportLogical(source.db);
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
    const backup = await createBackup({
      target: { kind: 'pglite', dataDir: original },
      logical: false,
      logger: silentLogger,
    });
    expect(backup.kind).toBe('pglite-archive');

    const restoredDir = path.join(root, 'restored', 'pglite');
    const target = { kind: 'pglite' as const, dataDir: restoredDir };
    await restoreBackup({ target, data: backup.data, logger: silentLogger });
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
    await expect(
      restoreBackup({ target, data: backup.data, logger: silentLogger }),
    ).rejects.toThrow(/is not empty/);
  }, 180_000);
});
