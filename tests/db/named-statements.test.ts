/**
 * On PostgreSQL the statements a turn sends every time (its start read, its opening, the member's
 * rate and claim, its bill) are named prepared statements: each connection parses and plans a
 * shape once and runs it again with other values. DATABASE_PREPARED_STATEMENTS=off (a pooler that
 * cannot carry them) sends the same text unnamed. PGlite has no named form: nothing to see there.
 */
import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { takeMemberTurn } from '../../src/db/member-turn-repository.ts';
import { ensureScope } from '../../src/db/scope-settings-repository.ts';
import { statementName } from '../../src/db/statement-cache.ts';
import { turnStartOf } from '../../src/db/turn-start-repository.ts';
import { silentLogger } from '../../src/core/logger.ts';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.ts';
import { testBackends, type TestDatabase } from '../support/test-database.ts';

const SCOPE = '143456789012345681';
const postgres = testBackends().find((backend) => backend.name === 'postgres');

describe.skipIf(postgres === undefined)('named statements on PostgreSQL', () => {
  let database: TestDatabase | undefined;
  let handle: DatabaseHandle | undefined;
  afterEach(async () => {
    await handle?.close();
    await database?.dispose();
    database = undefined;
    handle = undefined;
  });

  /** One connection: every statement below runs on the session whose statements are listed. */
  async function open(preparedStatements: boolean): Promise<DatabaseHandle> {
    database = await postgres!.open();
    await database.migrate();
    handle = await openDatabase({
      kind: 'postgres',
      url: database.url ?? '',
      logger: silentLogger,
      poolSize: 1,
      preparedStatements,
    });
    await ensureScope(handle.db, SCOPE, 'guild');
    return handle;
  }

  /** The connection's prepared statements of ours, with how often each was planned and run. */
  async function prepared(opened: DatabaseHandle) {
    const result: unknown = await opened.db.execute(sql`select name, statement,
      generic_plans + custom_plans as runs from pg_prepared_statements
      where name like 'tomodachi\\_%' order by name`);
    const { rows } = result as { rows: Record<string, unknown>[] };
    return rows.map((row) => ({
      name: String(row['name']),
      statement: String(row['statement']),
      runs: Number(row['runs']),
    }));
  }

  async function readStarts(opened: DatabaseHandle, times: number) {
    const reads = [];
    for (let index = 0; index < times; index += 1) {
      const read = await turnStartOf(opened.db, {
        channelId: `24345678901234${5000 + index}`,
        scopeId: SCOPE,
        authorId: `member-${index}`,
        turns: { recent: 10, important: 5, pinned: 2 },
      });
      reads.push(read.turns.length);
    }
    return reads;
  }

  it('prepares a turn start read once per connection and runs it with each call’s values', async () => {
    const opened = await open(true);
    expect(await readStarts(opened, 7)).toEqual([0, 0, 0, 0, 0, 0, 0]);
    const [start, ...others] = await prepared(opened);
    expect(others).toEqual([]);
    expect(start?.runs).toBe(7);
    // Named after its text: every process and connection gives one shape one name.
    expect(start?.name).toBe(statementName(start?.statement ?? ''));
  });

  it('prepares the rate limit’s statement per shape: with the claim, and without', async () => {
    const opened = await open(true);
    const ask = (key: string, claim: boolean) =>
      takeMemberTurn(opened.db, {
        key,
        scopeId: SCOPE,
        memberId: `m-${key}`,
        perWindow: 5,
        windowMs: 60_000,
        ...(claim
          ? { claim: { key, instanceId: 'i-1', channelId: '2', attempt: `a-${key}` } }
          : {}),
      });
    expect(await ask('k-1', true)).toEqual({ allowed: true, claimed: true });
    expect(await ask('k-2', true)).toEqual({ allowed: true, claimed: true });
    expect(await ask('k-3', false)).toEqual({ allowed: true });
    expect(await ask('k-4', false)).toEqual({ allowed: true });
    expect((await prepared(opened)).map((statement) => statement.runs)).toEqual(
      expect.arrayContaining([2, 2]),
    );
    expect(await prepared(opened)).toHaveLength(2);
  });

  it('sends them unnamed when DATABASE_PREPARED_STATEMENTS is off', async () => {
    const opened = await open(false);
    expect(await readStarts(opened, 3)).toEqual([0, 0, 0]);
    expect(await prepared(opened)).toEqual([]);
  });
});
