/**
 * The per-member rate limit as the database keeps it: shared by every process, one
 * count per message however many processes hear it, the same verdict for each of them, on the
 * database's clock whatever the hosts' clocks say.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  pruneMemberTurns,
  takeMemberTurn,
  type MemberTurnRequest,
} from '../../src/db/member-turn-repository.ts';
import { MemberRateLimiter } from '../../src/bot/limits/member-rate-limiter.ts';
import { testBackends, type TestDatabase } from '../support/test-database.ts';

const MINUTE = 60_000;
const START = Date.UTC(2026, 0, 5, 12, 0, 0);

describe.each(testBackends())('member turns on $name', (backend) => {
  let database: TestDatabase;
  let members = 0;
  /** Every statement the driver ran since the database was migrated. */
  const statements: string[] = [];

  beforeAll(async () => {
    database = await backend.open({ onQuery: (sample) => statements.push(sample.operation) });
    await database.migrate();
  });
  afterAll(() => database.dispose());

  /** A fresh member, and a way to ask about one of their messages. */
  function member(perWindow = 3) {
    members += 1;
    const memberId = `member-${members}`;
    return (key: string, atMs: number) => {
      const request: MemberTurnRequest = {
        key: `${memberId}:${key}`,
        scopeId: 'scope-1',
        memberId,
        perWindow,
        windowMs: MINUTE,
        now: new Date(START + atMs),
      };
      return takeMemberTurn(database.db, request);
    };
  }

  it('allows the limit per minute, then refuses until the oldest turn leaves the window', async () => {
    const ask = member();
    const verdicts = [];
    for (const [index, at] of [0, 1_000, 2_000, 3_000].entries()) {
      verdicts.push(await ask(`m${index}`, at));
    }
    expect(verdicts).toEqual([
      { allowed: true },
      { allowed: true },
      { allowed: true },
      { allowed: false, retryAfterMs: 57_000 },
    ]);
    // The refused turn used none of the allowance: at 60.001 s the first turn has left.
    expect(await ask('m4', MINUTE + 1)).toEqual({ allowed: true });
    expect(await ask('m5', MINUTE + 2)).toEqual({ allowed: false, retryAfterMs: 1_000 - 2 });
  });

  it('counts a message every process hears once, and gives each of them the same verdict', async () => {
    const ask = member(2);
    const heardByFour = await Promise.all(Array.from({ length: 4 }, () => ask('same', 0)));
    expect(heardByFour).toEqual(Array.from({ length: 4 }, () => ({ allowed: true })));
    expect(await ask('second', 10)).toEqual({ allowed: true });
    const refusedByFour = await Promise.all(Array.from({ length: 4 }, () => ask('third', 20)));
    expect(new Set(refusedByFour.map((verdict) => verdict.allowed))).toEqual(new Set([false]));
  });

  it('never lets concurrent turns of one member past the limit', async () => {
    const ask = member(3);
    const verdicts = await Promise.all(
      Array.from({ length: 10 }, (_unused, index) => ask(`burst-${index}`, index)),
    );
    expect(verdicts.filter((verdict) => verdict.allowed)).toHaveLength(3);
  });

  it('decides each message in one statement, refusals and repeated keys included', async () => {
    const ask = member(1);
    const before = statements.length;
    expect(await ask('first', 0)).toEqual({ allowed: true });
    expect(await ask('first', 5)).toEqual({ allowed: true });
    expect(await ask('second', 1_000)).toEqual({ allowed: false, retryAfterMs: 59_000 });
    expect(await ask('second', 1_500)).toEqual({ allowed: false, retryAfterMs: 58_500 });
    expect(statements.slice(before)).toEqual(['select', 'select', 'select', 'select']);
  });

  it('keeps members and scopes apart, and forgets turns outside every window', async () => {
    const first = member(1);
    const second = member(1);
    expect(await first('a', 0)).toEqual({ allowed: true });
    expect(await second('a', 0)).toEqual({ allowed: true });
    expect((await first('b', 1)).allowed).toBe(false);
    expect(await pruneMemberTurns(database.db, new Date(START + 10 * MINUTE))).toBeGreaterThan(0);
  });

  it('shares one window between hosts whose clocks disagree by minutes: the database clock', async () => {
    const take = (request: MemberTurnRequest) => takeMemberTurn(database.db, request);
    // Two processes on two hosts: one host's clock runs five minutes ahead of the other's.
    const [behind, ahead] = [new MemberRateLimiter(take), new MemberRateLimiter(take)];
    const turn = { scopeId: 'scope-skew', memberId: 'member-skew', perMinute: 1 };
    const now = Date.now();
    expect(await behind.take({ ...turn, key: 'skew-1', now })).toEqual({ allowed: true });
    const second = await ahead.take({ ...turn, key: 'skew-2', now: now + 5 * MINUTE });
    expect(second.allowed).toBe(false);
  });
});
