/**
 * A new embedded database starts from the committed template of PGlite's initdb files
 * (src/db/pglite-template.ts): one for the installed PGlite exists, a database made from it
 * migrates and keeps its rows across a reopen, and an existing database is never overwritten.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.ts';
import { startingFiles, templateFile } from '../../src/db/pglite-template.ts';
import { silentLogger } from '../../src/core/logger.ts';

describe('the embedded database template', () => {
  const directories: string[] = [];
  afterEach(() => {
    for (const directory of directories.splice(0))
      rmSync(directory, { recursive: true, force: true });
  });

  it('exists for the installed PGlite (after an upgrade: npm run db:template, then commit it)', () => {
    expect(existsSync(templateFile()), templateFile()).toBe(true);
  });

  it('gives a new directory its files, and an existing database none', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'pglite-template-'));
    directories.push(dataDir);
    expect(startingFiles(dataDir)?.size).toBeGreaterThan(1_000_000);

    const first = await openDatabase({ kind: 'pglite', dataDir, logger: silentLogger });
    await first.migrate();
    await first.db.execute(sql`create table kept (note text)`);
    await first.db.execute(sql`insert into kept values ('still here')`);
    await first.close();
    expect(startingFiles(dataDir)).toBeUndefined();

    const again = await openDatabase({ kind: 'pglite', dataDir, logger: silentLogger });
    try {
      const result: unknown = await again.db.execute(sql`select note from kept`);
      expect((result as { rows: unknown[] }).rows).toEqual([{ note: 'still here' }]);
    } finally {
      await again.close();
    }
  });
});
