import { describe, expect, it } from 'vitest';
import { MemberRateLimiter } from './member-rate-limiter.ts';

describe('MemberRateLimiter', () => {
  const base = { scopeId: 's', memberId: 'm', perMinute: 3 };

  it('allows the limit per minute, then refuses until the window slides', () => {
    const limiter = new MemberRateLimiter();
    expect([0, 1_000, 2_000, 3_000].map((now) => limiter.tryTake({ ...base, now }))).toEqual([
      true,
      true,
      true,
      false,
    ]);
    expect(limiter.retryAfterMs({ ...base, now: 3_000 })).toBe(57_000);
    expect(limiter.tryTake({ ...base, now: 60_001 })).toBe(true);
  });

  it('counts members and scopes separately', () => {
    const limiter = new MemberRateLimiter();
    for (let index = 0; index < 3; index += 1) limiter.tryTake({ ...base, now: index });
    expect(limiter.tryTake({ ...base, memberId: 'other', now: 10 })).toBe(true);
    expect(limiter.tryTake({ ...base, scopeId: 'dm', now: 10 })).toBe(true);
    expect(limiter.tryTake({ ...base, now: 10 })).toBe(false);
  });

  it('treats a limit of 0 as unlimited', () => {
    const limiter = new MemberRateLimiter();
    for (let index = 0; index < 100; index += 1) {
      expect(limiter.tryTake({ ...base, perMinute: 0, now: index })).toBe(true);
    }
  });
});
