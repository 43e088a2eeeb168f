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
import { claimMessage, unsettledClaims } from '../../src/db/claim-repository.ts';
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

  describe('with the message claimed in the same statement', () => {
    /** One process's claiming attempt of the member's message `key`. */
    function claimOf(key: string, instanceId: string, attempt: string) {
      return { key, instanceId, channelId: '2', attempt };
    }
    function take(
      key: string,
      memberId: string,
      perWindow: number,
      claim = claimOf(key, 'i-1', 'a-1'),
    ) {
      const request = { key, scopeId: 'scope-claims', memberId, perWindow, windowMs: MINUTE };
      return takeMemberTurn(database.db, { ...request, now: new Date(START), claim });
    }
    async function claimed(key: string): Promise<boolean> {
      const owed = await unsettledClaims(database.db, new Date(0));
      return owed.some((claim) => claim.messageId === key);
    }

    it('claims an allowed turn, for one attempt of one process only, in one statement', async () => {
      const before = statements.length;
      expect(await take('c-1', 'm-c1', 1)).toEqual({ allowed: true, claimed: true });
      // A `with` statement (the verdict, then the claim's insert) is reported as `other`.
      expect(statements.slice(before)).toEqual(['other']);
      expect(await claimed('c-1')).toBe(true);
      // Retried after a lost answer (same attempt): still this attempt's claim.
      expect(await take('c-1', 'm-c1', 1)).toEqual({ allowed: true, claimed: true });
      // Another process heard the message: the same verdict, the claim is not its own.
      expect(await take('c-1', 'm-c1', 1, claimOf('c-1', 'i-2', 'a-2'))).toEqual({
        allowed: true,
        claimed: false,
      });
      // The claim's own statement agrees: the key is held.
      expect(await claimMessage(database.db, claimOf('c-1', 'i-1', 'a-3'))).toBe(false);
    });

    it('claims nothing for a refused turn', async () => {
      expect(await take('c-2', 'm-c2', 1)).toEqual({ allowed: true, claimed: true });
      const refused = await take('c-3', 'm-c2', 1);
      expect(refused.allowed).toBe(false);
      expect(await claimed('c-3')).toBe(false);
    });

    it('gives the claim to exactly one of the processes that hear a message at once', async () => {
      const verdicts = await Promise.all(
        Array.from({ length: 6 }, (_unused, index) =>
          take('c-4', 'm-c4', 3, claimOf('c-4', `i-${index}`, `a-${index}`)),
        ),
      );
      expect(verdicts.every((verdict) => verdict.allowed)).toBe(true);
      expect(verdicts.filter((verdict) => verdict.allowed && verdict.claimed)).toHaveLength(1);
    });

    it('leaves the claim to the caller when it answers without the database', async () => {
      const limiter = new MemberRateLimiter((request) => takeMemberTurn(database.db, request));
      const claim = claimOf('c-5', 'i-1', 'a-1');
      const turn = {
        key: 'c-5',
        scopeId: 'scope-claims',
        memberId: 'm-c5',
        now: Date.now(),
        claim,
      };
      // No limit set: allowed at once, no statement, so nothing claimed yet.
      expect(await limiter.take({ ...turn, perMinute: 0 })).toEqual({ allowed: true });
      expect(await claimed('c-5')).toBe(false);
      expect(await limiter.take({ ...turn, perMinute: 5 })).toEqual({
        allowed: true,
        claimed: true,
      });
    });
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
