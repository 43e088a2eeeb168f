import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_TYPING_PACING, typingDelayMs } from './typing-pacing.ts';

describe('typingDelayMs', () => {
  const pacing = { millisecondsPerCharacter: 20, minimumMs: 500, maximumMs: 3000, jitter: 0.2 };

  it('is proportional to the length without jitter', () => {
    const middle = (): number => 0.5;
    expect(typingDelayMs('x'.repeat(50), middle, pacing)).toBe(1000);
    expect(typingDelayMs('x'.repeat(100), middle, pacing)).toBe(2000);
  });

  it('is clamped to its bounds', () => {
    expect(typingDelayMs('hi', () => 0.5, pacing)).toBe(500);
    expect(typingDelayMs('x'.repeat(10_000), () => 0.5, pacing)).toBe(3000);
  });

  it('varies by at most the jitter, and stays within the bounds for every random draw', () => {
    expect(typingDelayMs('x'.repeat(50), () => 0, pacing)).toBe(800);
    expect(typingDelayMs('x'.repeat(50), () => 0.999999, pacing)).toBe(1200);
    fc.assert(
      fc.property(
        fc.string({ maxLength: 500 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (text, draw) => {
          const delay = typingDelayMs(text, () => draw, DEFAULT_TYPING_PACING);
          expect(delay).toBeGreaterThanOrEqual(DEFAULT_TYPING_PACING.minimumMs);
          expect(delay).toBeLessThanOrEqual(DEFAULT_TYPING_PACING.maximumMs);
        },
      ),
    );
  });
});
