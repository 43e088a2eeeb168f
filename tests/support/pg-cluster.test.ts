import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findPostgresBinaries, startPgCluster, type PgCluster } from './pg-cluster.ts';

const available = findPostgresBinaries();

describe('findPostgresBinaries', () => {
  it('says why a suite skips when no initdb can be found', () => {
    const empty = path.join(tmpdir(), 'no-such-postgres-install');
    expect(findPostgresBinaries({ environment: { PATH: empty }, installRoot: empty })).toEqual({
      skipped: 'skipped: no initdb',
    });
  });

  it('finds the binaries named by PG_BIN_DIR first', () => {
    if ('skipped' in available) return;
    expect(findPostgresBinaries({ environment: { PG_BIN_DIR: available.binDir } })).toEqual({
      binDir: available.binDir,
    });
  });
});

describe.skipIf('skipped' in available)('a test PostgreSQL cluster', () => {
  let cluster: PgCluster;
  beforeAll(async () => {
    cluster = await startPgCluster();
  }, 120_000);
  afterAll(() => cluster?.dispose());

  async function selectOne(): Promise<number> {
    const client = new pg.Client({ connectionString: cluster.url });
    await client.connect();
    try {
      const result = await client.query<{ one: number }>('select 1 as one');
      return result.rows[0]!.one;
    } finally {
      await client.end();
    }
  }

  it('serves on its own loopback port with trust authentication', async () => {
    expect(cluster.url).toBe(`postgres://postgres@127.0.0.1:${cluster.port}/postgres`);
    expect(await selectOne()).toBe(1);
  });

  it('refuses connections while stopped and serves again once started', async () => {
    await cluster.stop();
    await expect(selectOne()).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await cluster.start();
    expect(await selectOne()).toBe(1);
  }, 60_000);

  it('terminates open sessions on restart, as an administrator shutdown (57P01)', async () => {
    const client = new pg.Client({ connectionString: cluster.url });
    // The first error is 57P01; "Connection terminated unexpectedly" follows on the same client.
    const lost = new Promise<unknown>((resolve) => client.on('error', resolve));
    await client.connect();
    await cluster.restart();
    expect(await lost).toMatchObject({ code: '57P01' });
    await client.end().catch(() => undefined);
    expect(await selectOne()).toBe(1);
  }, 60_000);

  it('removes every file and stops the server on dispose', async () => {
    const own = await startPgCluster();
    expect(existsSync(own.directory)).toBe(true);
    await own.dispose();
    await own.dispose();
    const client = new pg.Client({ connectionString: own.url });
    await expect(client.connect()).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect(existsSync(own.directory)).toBe(false);
  }, 120_000);
});
