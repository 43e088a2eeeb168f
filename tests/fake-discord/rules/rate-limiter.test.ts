import { describe, expect, it } from 'vitest';
import type { Clock } from '../../../src/core/clock.ts';
import { rateLimitHeaders, RateLimiter, retryAfterHeader } from './rate-limiter.ts';

function manualClock(start = 1_800_000_000_000): Clock & { advance(ms: number): void } {
  let now = start;
  return {
    now: () => now,
    sleep: () => Promise.resolve(),
    advance: (ms) => {
      now += ms;
    },
  };
}

const MESSAGES = { name: 'messageWrite', limit: 5, windowMs: 5_000 };

describe('rate limiter', () => {
  it('allows 5 writes per channel per 5 s, with headers counting down, then refuses until the reset', () => {
    const clock = manualClock();
    const limiter = new RateLimiter({ clock, timeScale: 1, globalPerSecond: 50 });
    const decisions = Array.from({ length: 6 }, () => limiter.take(MESSAGES, 'channel-a'));
    expect(decisions.map((decision) => decision.remaining)).toEqual([4, 3, 2, 1, 0, 0]);
    expect(decisions.map((decision) => decision.allowed)).toEqual([
      true,
      true,
      true,
      true,
      true,
      false,
    ]);
    expect(limiter.take(MESSAGES, 'channel-b').allowed).toBe(true);
    clock.advance(4_000);
    expect(limiter.take(MESSAGES, 'channel-a')).toMatchObject({
      allowed: false,
      resetAfterMs: 1_000,
    });
    clock.advance(1_000);
    expect(limiter.take(MESSAGES, 'channel-a')).toMatchObject({ allowed: true, remaining: 4 });
  });

  it('formats the headers as Discord does', () => {
    const clock = manualClock(1_470_173_022_000);
    const limiter = new RateLimiter({ clock, timeScale: 1, globalPerSecond: 50 });
    const headers = rateLimitHeaders(limiter.take(MESSAGES, 'c'));
    expect(headers).toEqual({
      'x-ratelimit-limit': '5',
      'x-ratelimit-remaining': '4',
      'x-ratelimit-reset': '1470173027.000',
      'x-ratelimit-reset-after': '5.000',
      'x-ratelimit-bucket': expect.stringMatching(/^[0-9a-f]{32}$/) as string,
    });
  });

  it('scales every window by the time scale', () => {
    const clock = manualClock();
    const limiter = new RateLimiter({ clock, timeScale: 0.05, globalPerSecond: 50 });
    for (let index = 0; index < 5; index += 1) limiter.take(MESSAGES, 'c');
    expect(limiter.take(MESSAGES, 'c')).toMatchObject({ allowed: false, resetAfterMs: 250 });
    clock.advance(250);
    expect(limiter.take(MESSAGES, 'c').allowed).toBe(true);
    expect(retryAfterHeader(250, 0.05)).toBe('0.250');
    expect(retryAfterHeader(1_200, 1)).toBe('2');
  });

  it('applies the global limit per bot per second', () => {
    const clock = manualClock();
    const limiter = new RateLimiter({ clock, timeScale: 1, globalPerSecond: 50 });
    const allowed = Array.from({ length: 51 }, () => limiter.takeGlobal('bot').allowed);
    expect(allowed.filter(Boolean)).toHaveLength(50);
    clock.advance(1_000);
    expect(limiter.takeGlobal('bot').allowed).toBe(true);
  });

  it('counts every refusal of the global limit until a reset', () => {
    const clock = manualClock();
    const limiter = new RateLimiter({ clock, timeScale: 1, globalPerSecond: 2 });
    const allowed = Array.from({ length: 5 }, () => limiter.takeGlobal('bot').allowed);
    expect(allowed).toEqual([true, true, false, false, false]);
    expect(limiter.globalRefusals).toBe(3);
    limiter.reset();
    expect(limiter.globalRefusals).toBe(0);
  });

  it('keeps the global window at its own scale while route buckets run scaled down', () => {
    const clock = manualClock();
    const limiter = new RateLimiter({
      clock,
      timeScale: 0.05,
      globalPerSecond: 50,
      globalTimeScale: 1,
    });
    expect(Array.from({ length: 50 }, () => limiter.takeGlobal('bot').allowed)).not.toContain(
      false,
    );
    clock.advance(500);
    const refused = limiter.takeGlobal('bot');
    expect(refused.allowed).toBe(false);
    expect(refused.resetAfterMs).toBe(500);
    expect(limiter.take(MESSAGES, 'c').resetAfterMs).toBe(250);
  });
});
