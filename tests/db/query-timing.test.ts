import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/logger.ts';
import type { DatabaseQuerySample } from '../../src/core/metrics.ts';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.ts';
import { queryOperation } from '../../src/db/query-timing.ts';

const backends = [
  { name: 'pglite', url: undefined },
  ...(process.env.TEST_DATABASE_URL === undefined
    ? []
    : [{ name: 'postgres', url: process.env.TEST_DATABASE_URL }]),
];

describe.each(backends)('query timing on $name', ({ url }) => {
  const samples: DatabaseQuerySample[] = [];
  let database: DatabaseHandle;
  const table = `timing_${process.pid}_${Date.now()}`;

  beforeAll(async () => {
    const onQuery = (sample: DatabaseQuerySample): void => void samples.push(sample);
    database = await openDatabase(
      url === undefined
        ? { kind: 'pglite', dataDir: undefined, logger: silentLogger, onQuery }
        : { kind: 'postgres', url, logger: silentLogger, poolSize: 2, onQuery },
    );
  }, 120_000);
  afterAll(async () => {
    await database.db.execute(sql.raw(`drop table if exists ${table}`));
    await database.close();
  });

  it('times every query with its kind, inside transactions too, and marks failures', async () => {
    await database.db.execute(sql.raw(`create temporary table if not exists ${table} (n int)`));
    samples.length = 0;
    await database.db.execute(sql`select 1`);
    await database.db.transaction(async (transaction) => {
      await transaction.execute(sql.raw(`insert into ${table} values (1)`));
      await transaction.execute(sql.raw(`update ${table} set n = 2`));
    });
    await expect(database.db.execute(sql`select * from no_such_table`)).rejects.toThrow();
    const operations = samples.map((sample) => sample.operation);
    expect(operations).toEqual(expect.arrayContaining(['select', 'insert', 'update']));
    expect(samples.every((sample) => sample.durationMs >= 0)).toBe(true);
    expect(samples.filter((sample) => !sample.ok)).toEqual([
      expect.objectContaining({ operation: 'select', ok: false }),
    ]);
  });
});

describe('queryOperation', () => {
  it('labels a statement by its first keyword, from text or a query config', () => {
    expect(queryOperation('  SELECT 1')).toBe('select');
    expect(queryOperation({ text: 'insert into x values ($1)', values: [1] })).toBe('insert');
    expect(queryOperation('begin')).toBe('transaction');
    expect(queryOperation('with x as (select 1) select * from x')).toBe('other');
    expect(queryOperation(undefined)).toBe('other');
  });
});
