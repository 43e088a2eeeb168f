import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../stream/testing/manual-clock.ts';
import { TypingAllowance } from './typing-allowance.ts';

describe('TypingAllowance', () => {
  it('allows its rate per second across the process and refills with time', async () => {
    const clock = new ManualClock();
    const allowance = new TypingAllowance(clock, { perSecond: 3 });
    expect([1, 2, 3, 4].map(() => allowance.tryTake())).toEqual([true, true, true, false]);
    await clock.advance(340);
    expect(allowance.tryTake()).toBe(true);
    expect(allowance.tryTake()).toBe(false);
    await clock.advance(10_000);
    expect([1, 2, 3, 4].map(() => allowance.tryTake())).toEqual([true, true, true, false]);
  });
});

describe('TypingAllowance skips', () => {
  it('reports each typing call it skips, and only those', () => {
    const clock = new ManualClock();
    let skipped = 0;
    const allowance = new TypingAllowance(clock, {
      perSecond: 2,
      onSkipped: () => (skipped += 1),
    });
    expect([1, 2, 3, 4].map(() => allowance.tryTake())).toEqual([true, true, false, false]);
    expect(skipped).toBe(2);
  });
});
