import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAILY_BUDGET_REFRESH_MS, DailyBudget } from '../../src/bot/limits/daily-budget.ts';
import { ensureScope } from '../../src/db/scope-settings-repository.ts';
import { addDailyUsage, dailyUsage } from '../../src/db/usage-repository.ts';
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
    expect(await budget.exhausted(scopeId, undefined)).toBe(false);
    expect(await budget.exhausted(scopeId, 0)).toBe(false);
    expect(await budget.exhausted(scopeId, -1)).toBe(false);
  });

  it('counts input and output tokens and is exhausted once they reach the budget', async () => {
    const { scopeId, budget } = await setup('2026-03-10T12:00:00Z');
    await budget.record(scopeId, { inputTokens: 600, outputTokens: 399 });
    expect(await budget.exhausted(scopeId, 1_000)).toBe(false);
    // The tally was loaded above; its own spending counts at once, not a minute later.
    await budget.record(scopeId, { inputTokens: 0, outputTokens: 1 });
    expect(await budget.exhausted(scopeId, 1_000)).toBe(true);
    expect(await dailyUsage(database.db, scopeId, new Date('2026-03-10T00:00:00Z'))).toBe(1_000);
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
    expect(await budget.exhausted(unbudgeted, undefined)).toBe(false);
    await budget.record(unbudgeted, spend);
    expect(await budget.exhausted(budgeted, 1_000)).toBe(false);
    await budget.record(budgeted, spend);
    // Another process's spending drops the tally, not the knowledge that a budget is set.
    budget.forget(budgeted);
    await budget.record(budgeted, spend);
    expect(announced).toEqual([unchecked, budgeted, budgeted]);
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
    expect(await budget.exhausted(scopeId, 1_000)).toBe(false);
    await otherProcess.record(scopeId, { inputTokens: 800, outputTokens: 200 });
    await clock.advance(DAILY_BUDGET_REFRESH_MS - 1);
    expect(await budget.exhausted(scopeId, 1_000)).toBe(false); // the tally is still trusted
    await clock.advance(1);
    expect(await budget.exhausted(scopeId, 1_000)).toBe(true);
  });

  it('starts a new day at UTC midnight, even inside the refresh minute', async () => {
    const { scopeId, clock, budget } = await setup('2026-03-10T23:59:30Z');
    await budget.record(scopeId, { inputTokens: 1_000, outputTokens: 0 });
    expect(await budget.exhausted(scopeId, 1_000)).toBe(true);
    await clock.advance(29_999); // 23:59:59.999
    expect(await budget.exhausted(scopeId, 1_000)).toBe(true);
    await clock.advance(1); // 00:00:00.000 UTC
    expect(await budget.exhausted(scopeId, 1_000)).toBe(false);

    await budget.record(scopeId, { inputTokens: 10, outputTokens: 5 });
    expect(await dailyUsage(database.db, scopeId, new Date('2026-03-10T12:00:00Z'))).toBe(1_000);
    expect(await dailyUsage(database.db, scopeId, new Date('2026-03-11T12:00:00Z'))).toBe(15);
  });

  it('keeps each scope to its own budget', async () => {
    const first = await setup('2026-03-10T12:00:00Z');
    const second = await setup('2026-03-10T12:00:00Z');
    await addDailyUsage(database.db, {
      scopeId: first.scopeId,
      at: new Date('2026-03-10T08:00:00Z'),
      inputTokens: 2_000,
      outputTokens: 0,
    });
    expect(await first.budget.exhausted(first.scopeId, 1_000)).toBe(true);
    expect(await first.budget.exhausted(second.scopeId, 1_000)).toBe(false);
  });
});
