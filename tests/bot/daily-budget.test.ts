import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAILY_BUDGET_REFRESH_MS, DailyBudget } from '../../src/bot/limits/daily-budget.ts';
import { ensureScope } from '../../src/db/scope-settings-repository.ts';
import { addUsage, dailySpend } from '../../src/db/usage-repository.ts';
import { NO_USAGE } from '../support/usage-entries.ts';
import { ManualClock } from '../../src/stream/testing/manual-clock.ts';
import { testBackends, type TestDatabase } from '../support/test-database.ts';

describe.each(testBackends())('DailyBudget on $name', (backend) => {
  let database: TestDatabase;
  let nextScope = 1;

  // Far from UTC, so a day counted in local time would roll over at the wrong moment.
  const processTimeZone = process.env.TZ;
  beforeAll(async () => {
    process.env.TZ = 'Pacific/Kiritimati';
    database = await backend.open();
    await database.migrate();
  });
  afterAll(async () => {
    process.env.TZ = processTimeZone;
    await database.dispose();
  });

  /** A fresh guild scope, a clock at `at`, and a budget over them. */
  async function setup(at: string) {
    const scopeId = `1100000000000000${String(nextScope++).padStart(2, '0')}`;
    await ensureScope(database.db, scopeId, 'guild');
    const clock = new ManualClock(Date.parse(at));
    return { scopeId, clock, budget: new DailyBudget({ db: database.db, clock }) };
  }

  it('is never exhausted without a positive budget', async () => {
    const { scopeId, budget } = await setup('2026-03-10T12:00:00Z');
    await budget.record(scopeId, { inputTokens: 5_000, outputTokens: 5_000 });
    expect(await budget.exhausted(scopeId, { tokens: undefined })).toBe(false);
    expect(await budget.exhausted(scopeId, { tokens: 0 })).toBe(false);
    expect(await budget.exhausted(scopeId, { tokens: -1 })).toBe(false);
  });

  it('is exhausted once the money spent reaches a budget in dollars, naming it and the reset', async () => {
    const { scopeId, budget } = await setup('2026-03-10T21:30:00Z');
    const dollar = 1_000_000_000;
    await budget.record(scopeId, { inputTokens: 100, outputTokens: 10, cost: 0.6 * dollar });
    expect(await budget.refusal(scopeId, { cost: dollar })).toBeUndefined();
    await budget.record(scopeId, { inputTokens: 100, outputTokens: 10, cost: 0.4 * dollar });
    expect(await budget.refusal(scopeId, { cost: dollar, tokens: 1_000_000 })).toEqual({
      who: 'server',
      spent: { tokens: 220, cost: dollar },
      resetsAt: new Date('2026-03-11T00:00:00Z'),
    });
  });

  it("holds each member to a member's budget, leaving the others free", async () => {
    const { scopeId, budget } = await setup('2026-03-10T12:00:00Z');
    const limits = { memberTokens: 1_000 };
    await budget.record(scopeId, {
      memberId: 'alice',
      model: 'm1',
      inputTokens: 700,
      outputTokens: 0,
    });
    await budget.record(scopeId, {
      memberId: 'alice',
      model: 'm2',
      inputTokens: 300,
      outputTokens: 0,
    });
    await budget.record(scopeId, {
      memberId: 'bob',
      model: 'm1',
      inputTokens: 999,
      outputTokens: 0,
    });
    expect(await budget.refusal(scopeId, limits, 'alice')).toMatchObject({
      who: 'member',
      spent: { tokens: 1_000, cost: 0 },
    });
    expect(await budget.refusal(scopeId, limits, 'bob')).toBeUndefined();
    // Bob's tally is cached now; his next turn counts at once.
    await budget.record(scopeId, { memberId: 'bob', model: 'm1', inputTokens: 1, outputTokens: 0 });
    expect(await budget.exhausted(scopeId, limits, 'bob')).toBe(true);
    // The server as a whole has no budget.
    expect(await budget.exhausted(scopeId, limits)).toBe(false);
  });

  it('counts input and output tokens and is exhausted once they reach the budget', async () => {
    const { scopeId, budget } = await setup('2026-03-10T12:00:00Z');
    await budget.record(scopeId, { inputTokens: 600, outputTokens: 399 });
    expect(await budget.exhausted(scopeId, { tokens: 1_000 })).toBe(false);
    // The tally was loaded above; its own spending counts at once, not a minute later.
    await budget.record(scopeId, { inputTokens: 0, outputTokens: 1 });
    expect(await budget.exhausted(scopeId, { tokens: 1_000 })).toBe(true);
    expect((await dailySpend(database.db, scopeId, new Date('2026-03-10T00:00:00Z'))).tokens).toBe(
      1_000,
    );
  });

  it('announces spending to the other processes only in scopes that may have a budget', async () => {
    const clock = new ManualClock(Date.parse('2026-03-10T12:00:00Z'));
    const announced: string[] = [];
    const budget = new DailyBudget({
      db: database.db,
      clock,
      announce: (scopeId) => announced.push(scopeId),
    });
    const [unchecked, unbudgeted, budgeted] = [
      (await setup('2026-03-10T12:00:00Z')).scopeId,
      (await setup('2026-03-10T12:00:00Z')).scopeId,
      (await setup('2026-03-10T12:00:00Z')).scopeId,
    ];
    const spend = { inputTokens: 10, outputTokens: 5 };
    // Never checked here: another process may hold its tally.
    await budget.record(unchecked, spend);
    // Checked without a budget: no process caches a tally, a NOTIFY per turn would be waste.
    expect(await budget.exhausted(unbudgeted, { tokens: undefined })).toBe(false);
    await budget.record(unbudgeted, spend);
    expect(await budget.exhausted(budgeted, { tokens: 1_000 })).toBe(false);
    await budget.record(budgeted, spend);
    // Another process's spending drops the tally, not the knowledge that a budget is set.
    budget.forget(budgeted);
    await budget.record(budgeted, spend);
    expect(announced).toEqual([unchecked, budgeted, budgeted]);
  });

  it('remembers at most its capacity of scopes: a forgotten scope is read and announced again', async () => {
    const clock = new ManualClock(Date.parse('2026-03-10T12:00:00Z'));
    const announced: string[] = [];
    const budget = new DailyBudget({
      db: database.db,
      clock,
      announce: (scopeId) => announced.push(scopeId),
      maxScopes: 2,
    });
    const scopes: string[] = [];
    for (let index = 0; index < 3; index += 1)
      scopes.push((await setup('2026-03-10T12:00:00Z')).scopeId);
    const [first = '', second = '', third = ''] = scopes;
    for (const scopeId of scopes) {
      expect(await budget.exhausted(scopeId, { tokens: 1_000 })).toBe(false);
    }
    // Spent elsewhere: a remembered tally would hide it for a minute, a forgotten one is re-read.
    await addUsage(database.db, {
      ...NO_USAGE,
      scopeId: first,
      at: new Date(clock.now()),
      inputTokens: 1_000,
    });
    expect(await budget.exhausted(first, { tokens: 1_000 })).toBe(true);
    // `second` is forgotten as having no budget: its spending is announced, as for a new scope.
    for (const scopeId of [second, third, first]) {
      await budget.exhausted(scopeId, { tokens: undefined });
    }
    await budget.record(second, { inputTokens: 1, outputTokens: 0 });
    await budget.record(third, { inputTokens: 1, outputTokens: 0 });
    expect(announced).toEqual([second]);
  });

  it('writes nothing for a turn that used no tokens', async () => {
    const { scopeId, budget } = await setup('2026-03-10T12:00:00Z');
    await budget.record(scopeId, { inputTokens: 0, outputTokens: 0 });
    const rows = await database.rawQuery(
      sql`select count(*)::int as count from scope_daily_usage where scope_id = ${scopeId}`,
    );
    expect(rows).toEqual([{ count: 0 }]);
  });

  it('sees another process spending within a minute, reading the database at most once a minute', async () => {
    const { scopeId, clock, budget } = await setup('2026-03-10T12:00:00Z');
    const otherProcess = new DailyBudget({ db: database.db, clock });
    expect(await budget.exhausted(scopeId, { tokens: 1_000 })).toBe(false);
    await otherProcess.record(scopeId, { inputTokens: 800, outputTokens: 200 });
    await clock.advance(DAILY_BUDGET_REFRESH_MS - 1);
    expect(await budget.exhausted(scopeId, { tokens: 1_000 })).toBe(false); // the tally is still trusted
    await clock.advance(1);
    expect(await budget.exhausted(scopeId, { tokens: 1_000 })).toBe(true);
  });

  it('starts a new day at UTC midnight, even inside the refresh minute', async () => {
    const { scopeId, clock, budget } = await setup('2026-03-10T23:59:30Z');
    await budget.record(scopeId, { inputTokens: 1_000, outputTokens: 0 });
    expect(await budget.exhausted(scopeId, { tokens: 1_000 })).toBe(true);
    await clock.advance(29_999); // 23:59:59.999
    expect(await budget.exhausted(scopeId, { tokens: 1_000 })).toBe(true);
    await clock.advance(1); // 00:00:00.000 UTC
    expect(await budget.exhausted(scopeId, { tokens: 1_000 })).toBe(false);

    await budget.record(scopeId, { inputTokens: 10, outputTokens: 5 });
    expect((await dailySpend(database.db, scopeId, new Date('2026-03-10T12:00:00Z'))).tokens).toBe(
      1_000,
    );
    expect((await dailySpend(database.db, scopeId, new Date('2026-03-11T12:00:00Z'))).tokens).toBe(
      15,
    );
  });

  it('keeps each scope to its own budget', async () => {
    const first = await setup('2026-03-10T12:00:00Z');
    const second = await setup('2026-03-10T12:00:00Z');
    await addUsage(database.db, {
      ...NO_USAGE,
      scopeId: first.scopeId,
      at: new Date('2026-03-10T08:00:00Z'),
      inputTokens: 2_000,
    });
    expect(await first.budget.exhausted(first.scopeId, { tokens: 1_000 })).toBe(true);
    expect(await first.budget.exhausted(second.scopeId, { tokens: 1_000 })).toBe(false);
  });
});
