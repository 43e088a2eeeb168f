/**
 * A new embedded database starts from the committed template of PGlite's initdb files
 * (src/db/pglite-template.ts): one for the installed PGlite exists, a database unpacked from
 * it migrates and keeps its rows across a reopen, an existing database is never overwritten, and
 * an unpacking cut off midway leaves no PG_VERSION (so the next start unpacks again).
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.ts';
import { startingFiles, templateFile, unpackTemplate } from '../../src/db/pglite-template.ts';
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

  it('unpacks into a new directory, and leaves an existing database alone', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'pglite-template-'));
    directories.push(dataDir);
    expect(startingFiles()?.size).toBeGreaterThan(1_000_000); // in memory: the tarball

    const first = await openDatabase({ kind: 'pglite', dataDir, logger: silentLogger });
    expect(statSync(path.join(dataDir, 'PG_VERSION')).size).toBeGreaterThan(0);
    expect(statSync(path.join(dataDir, 'pg_wal')).isDirectory()).toBe(true);
    await first.migrate();
    await first.db.execute(sql`create table kept (note text)`);
    await first.db.execute(sql`insert into kept values ('still here')`);
    await first.close();
    expect(await unpackTemplate(dataDir)).toBe(false);

    const again = await openDatabase({ kind: 'pglite', dataDir, logger: silentLogger });
    try {
      const result: unknown = await again.db.execute(sql`select note from kept`);
      expect((result as { rows: unknown[] }).rows).toEqual([{ note: 'still here' }]);
    } finally {
      await again.close();
    }
  });

  it('writes PG_VERSION only when the whole template is unpacked, and starts a cut-off one over', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'pglite-template-'));
    directories.push(dataDir);
    const truncated = path.join(dataDir, '..', `${path.basename(dataDir)}.tar.gz`);
    directories.push(truncated);
    const { readFileSync } = await import('node:fs');
    const { gunzipSync, gzipSync } = await import('node:zlib');
    const whole = gunzipSync(readFileSync(templateFile()));
    writeFileSync(truncated, gzipSync(whole.subarray(0, Math.floor(whole.length / 2))));

    await expect(unpackTemplate(dataDir, truncated)).rejects.toThrow(
      /ends inside a file|ends before its end-of-archive|no whole PG_VERSION/,
    );
    expect(existsSync(path.join(dataDir, 'PG_VERSION'))).toBe(false);
    expect(readdirSync(dataDir).length).toBeGreaterThan(0); // what the cut-off start wrote
    writeFileSync(path.join(dataDir, 'left-over'), 'x');

    expect(await unpackTemplate(dataDir)).toBe(true);
    expect(existsSync(path.join(dataDir, 'left-over'))).toBe(false);
    const database = await openDatabase({ kind: 'pglite', dataDir, logger: silentLogger });
    try {
      const result: unknown = await database.db.execute(sql`select 1 as one`);
      expect((result as { rows: unknown[] }).rows).toEqual([{ one: 1 }]);
    } finally {
      await database.close();
    }
  });
});
