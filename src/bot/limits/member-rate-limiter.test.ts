import { describe, expect, it } from 'vitest';
import type { MemberTurnRequest, MemberTurnVerdict } from '../../db/member-turn-repository.ts';
import { MemberRateLimiter } from './member-rate-limiter.ts';

/** An in-memory stand-in for the database's verdicts, counting its round trips. */
function recordingStore(verdicts: MemberTurnVerdict[]) {
  const asked: MemberTurnRequest[] = [];
  const takeTurn = (request: MemberTurnRequest): Promise<MemberTurnVerdict> => {
    asked.push(request);
    return Promise.resolve(verdicts.shift() ?? { allowed: true });
  };
  return { asked, limiter: new MemberRateLimiter(takeTurn) };
}

describe('MemberRateLimiter', () => {
  const base = { scopeId: 's', memberId: 'm', perMinute: 3 };

  it('asks the database with the message as the key and a one-minute window on its own clock', async () => {
    const { asked, limiter } = recordingStore([{ allowed: true }]);
    expect(await limiter.take({ ...base, key: 'message-1', now: 5_000 })).toEqual({
      allowed: true,
    });
    expect(asked).toEqual([
      {
        key: 'message-1',
        scopeId: 's',
        memberId: 'm',
        perWindow: 3,
        windowMs: 60_000,
      },
    ]);
  });

  it('remembers a refusal until it ends, without asking the database again', async () => {
    const { asked, limiter } = recordingStore([{ allowed: false, retryAfterMs: 10_000 }]);
    await limiter.take({ ...base, key: 'message-1', now: 0 });
    expect(await limiter.take({ ...base, key: 'message-2', now: 4_000 })).toEqual({
      allowed: false,
      retryAfterMs: 6_000,
    });
    // Another member, and the same member once the refusal has ended, go to the database.
    await limiter.take({ ...base, memberId: 'other', key: 'message-3', now: 4_000 });
    await limiter.take({ ...base, key: 'message-4', now: 10_000 });
    expect(asked.map((request) => request.key)).toEqual(['message-1', 'message-3', 'message-4']);
  });

  it('treats a limit of 0 as unlimited, without a database round trip', async () => {
    const { asked, limiter } = recordingStore([]);
    for (let index = 0; index < 10; index += 1) {
      expect(
        await limiter.take({ ...base, perMinute: 0, key: `message-${index}`, now: index }),
      ).toEqual({ allowed: true });
    }
    expect(asked).toEqual([]);
  });
});
