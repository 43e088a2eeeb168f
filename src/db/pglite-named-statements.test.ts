import { PGlite, types } from '@electric-sql/pglite';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nameRepeatedStatements } from './pglite-named-statements.ts';

/** Drizzle's options for a statement without fields: rows as objects, dates as text. */
const DRIZZLE_OPTIONS = {
  rowMode: 'object' as const,
  parsers: { [types.TIMESTAMPTZ]: (value: string) => value },
};

let named: PGlite;
let plain: PGlite;

beforeAll(async () => {
  [named, plain] = await Promise.all([PGlite.create(), PGlite.create()]);
  nameRepeatedStatements(named);
  for (const client of [named, plain]) {
    await client.exec(`
      create table notes (id serial primary key, body text not null unique, meta jsonb,
        at timestamptz not null default '2026-11-29T10:00:00Z', score numeric);
      insert into notes (body, meta, score) values ('one', '{"a":1}', 1.5), ('two', null, null);
    `);
  }
}, 60_000);

afterAll(async () => {
  await Promise.all([named?.close(), plain?.close()]);
});

async function preparedNames(client: PGlite): Promise<string[]> {
  const { rows } = await client.query<{ statement: string }>(
    'select statement from pg_prepared_statements order by statement',
  );
  return rows.map((row) => row.statement);
}

describe('nameRepeatedStatements', () => {
  it('names a text on its second call and answers as PGlite does, in both row modes', async () => {
    const text = 'select id, body, meta, at, score from notes where id >= $1 order by id';
    for (const options of [DRIZZLE_OPTIONS, { rowMode: 'array' as const }, undefined]) {
      const expected = await plain.query(text, [1], options);
      const first = await named.query(text, [1], options);
      const second = await named.query(text, [1], options);
      const third = await named.query(text, [2], options);
      expect(first).toEqual(expected);
      expect(second).toEqual(expected);
      expect(third).toEqual(await plain.query(text, [2], options));
    }
    expect(await preparedNames(named)).toContain(text);
  });

  it('parses the arrays of a type PGlite learns later, as PGlite does', async () => {
    for (const client of [named, plain]) {
      await client.exec(`
        create type mood as enum ('happy', 'sad');
        create table moods (id int, felt mood[]);
        insert into moods values (1, '{happy,sad}');
      `);
      await client.refreshArrayTypes();
    }
    const text = 'select felt from moods where id = $1';
    const expected = await plain.query(text, [1], DRIZZLE_OPTIONS);
    expect(expected.rows).toEqual([{ felt: ['happy', 'sad'] }]);
    await named.query(text, [1], DRIZZLE_OPTIONS);
    expect(await named.query(text, [1], DRIZZLE_OPTIONS)).toEqual(expected);
  });

  it('leaves a text asked once unnamed', async () => {
    const text = "select 'only once' as once";
    await named.query(text);
    expect(await preparedNames(named)).not.toContain(text);
  });

  it('counts the rows a write changed, and serializes values by their parameter types', async () => {
    const text = 'update notes set meta = $1, score = $2 where body = any($3::text[])';
    const values = [{ b: [1, 'x'] }, 2.25, ['one', 'two']];
    await named.query(text, values);
    const result = await named.query(text, values);
    expect(result.affectedRows).toBe(2);
    const { rows } = await named.query<{ meta: unknown; score: string }>(
      'select meta, score from notes order by id',
    );
    expect(rows).toEqual([
      { meta: { b: [1, 'x'] }, score: '2.25' },
      { meta: { b: [1, 'x'] }, score: '2.25' },
    ]);
  });

  it("throws PostgreSQL's error with the statement, and goes on answering", async () => {
    const text = 'insert into notes (body) values ($1)';
    await named.query(text, ['three']);
    const error = await named.query(text, ['three']).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: '23505', query: text, params: ['three'] });
    await named.query(text, ['four']);
    const { rows } = await named.query<{ count: number }>(
      'select count(*)::int as count from notes where body in ($1, $2)',
      ['three', 'four'],
    );
    expect(rows).toEqual([{ count: 2 }]);
  });

  it('answers with the new columns after a table changed under a named statement', async () => {
    await named.exec('create table shifting (id int)');
    await named.exec('insert into shifting values (1)');
    const text = 'select * from shifting where id = $1';
    await named.query(text, [1]);
    expect((await named.query(text, [1])).rows).toEqual([{ id: 1 }]);
    await named.exec("alter table shifting add column label text default 'new'");
    expect((await named.query(text, [1])).rows).toEqual([{ id: 1, label: 'new' }]);
    expect((await named.query(text, [1])).rows).toEqual([{ id: 1, label: 'new' }]);
  });

  it('gives a text PostgreSQL cannot parse the same error every time', async () => {
    const text = 'selec 1';
    for (let call = 0; call < 3; call += 1)
      await expect(named.query(text)).rejects.toMatchObject({ code: '42601' });
  });

  it('keeps at most 64 statements named, closing the least recently used', async () => {
    for (let index = 0; index < 100; index += 1) {
      const text = `select ${index} + $1::int as n`;
      await named.query(text, [1]);
      expect((await named.query(text, [1])).rows).toEqual([{ n: index + 1 }]);
    }
    await named.query('select 1');
    const { rows } = await named.query<{ count: number }>(
      'select count(*)::int as count from pg_prepared_statements',
    );
    expect(rows[0]?.count).toBeLessThanOrEqual(64);
    // The most recent are still named and still answer.
    expect((await named.query('select 99 + $1::int as n', [2])).rows).toEqual([{ n: 101 }]);
  });

  it('runs outside a transaction that is open meanwhile', async () => {
    await named.exec('create table waits (n int)');
    const text = 'select count(*)::int as count from waits';
    await named.query(text);
    let release: () => void = () => undefined;
    let inserted: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const insertedRow = new Promise<void>((resolve) => (inserted = resolve));
    const rolledBack = named.transaction(async (tx) => {
      await tx.query('insert into waits values (1)');
      inserted();
      await held;
      await tx.rollback();
    });
    await insertedRow;
    // Asked while the transaction holds an uncommitted row: answered after it, without the row.
    const counted = named.query<{ count: number }>(text);
    await new Promise((resolve) => setImmediate(resolve));
    release();
    await rolledBack;
    expect((await counted).rows).toEqual([{ count: 0 }]);
  });

  it('returns what PGlite returns for any text and integer values', async () => {
    const text = 'select $1::text as label, $2::int as n, length($1::text) as size';
    await fc.assert(
      fc.asyncProperty(
        fc.option(fc.string({ unit: 'grapheme' }).filter((value) => !value.includes('\0'))),
        fc.integer(),
        async (label, n) => {
          const expected = await plain.query(text, [label, n]);
          expect(await named.query(text, [label, n])).toEqual(expected);
        },
      ),
      { numRuns: 60 },
    );
  });
});
