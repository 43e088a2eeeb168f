import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TimeOrderedIds } from './time-ordered-id.ts';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('TimeOrderedIds', () => {
  it('makes version 7 ids carrying the millisecond they were made in', () => {
    const ids = new TimeOrderedIds({ now: () => 0x0123_4567_89ab });
    const id = ids.next();
    expect(id).toMatch(UUID_V7);
    expect(id.replace(/-/g, '').slice(0, 12)).toBe('0123456789ab');
  });

  it('sorts in the order made, whatever the clock does (same ms, steps back, bursts)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1_700_000_000_000, max: 1_700_000_000_050 }), {
          minLength: 2,
          maxLength: 6_000,
        }),
        (times) => {
          let call = 0;
          const ids = new TimeOrderedIds({ now: () => times[call++ % times.length] ?? 0 });
          const made = times.map(() => ids.next());
          expect(new Set(made).size).toBe(made.length);
          expect([...made].sort()).toEqual(made);
        },
      ),
      { numRuns: 50 },
    );
  });
});
