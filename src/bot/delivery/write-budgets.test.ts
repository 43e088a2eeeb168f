import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../stream/testing/manual-clock.ts';
import { readBucket, WriteBudgets } from './write-budgets.ts';

describe('WriteBudgets', () => {
  it('is optimistic for an unknown channel, then follows the headers', () => {
    const clock = new ManualClock();
    const budgets = new WriteBudgets(clock);
    expect(budgets.reserve('c')).toBe(0);
    budgets.observe('c', { limit: 5, remaining: 1, resetAfterMs: 4_000 });
    expect(budgets.reserve('c')).toBe(0);
    expect(budgets.reserve('c')).toBe(4_000);
    expect(budgets.available('c')).toBe(false);
  });

  it('refills after the reset and locks a channel for a 429 retry-after', async () => {
    const clock = new ManualClock();
    const budgets = new WriteBudgets(clock);
    budgets.observe('c', { limit: 2, remaining: 0, resetAfterMs: 1_000 });
    await clock.advance(1_000);
    expect(budgets.reserve('c')).toBe(0);
    expect(budgets.reserve('c')).toBe(0);
    budgets.observeRateLimited('c', 2_500);
    expect(budgets.reserve('c')).toBe(2_500);
    expect(budgets.reserve('other')).toBe(0);
  });

  it('keeps at most its capacity of channels, forgetting the least recently written', () => {
    const clock = new ManualClock();
    const budgets = new WriteBudgets(clock, 2);
    budgets.observe('a', { limit: 5, remaining: 0, resetAfterMs: 4_000 });
    budgets.observe('b', { limit: 5, remaining: 0, resetAfterMs: 4_000 });
    expect(budgets.reserve('a')).toBe(4_000);
    budgets.observe('c', { limit: 5, remaining: 0, resetAfterMs: 4_000 });
    expect(budgets.size).toBe(2);
    // 'b' was forgotten (optimistic again), 'a' was used since and is kept.
    expect(budgets.reserve('b')).toBe(0);
    expect(budgets.reserve('a')).toBe(4_000);
  });

  it('reads Discord headers and ignores responses without them', () => {
    const headers = new Headers({
      'x-ratelimit-limit': '5',
      'x-ratelimit-remaining': '3',
      'x-ratelimit-reset-after': '4.25',
    });
    expect(readBucket(headers)).toEqual({ limit: 5, remaining: 3, resetAfterMs: 4_250 });
    expect(readBucket(new Headers())).toBeUndefined();
  });
});
