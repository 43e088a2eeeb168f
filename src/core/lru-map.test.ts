import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LruMap } from './lru-map.ts';

describe('LruMap', () => {
  it('never holds more than its capacity, whatever is written', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.array(fc.integer({ min: 0, max: 50 }), { maxLength: 300 }),
        (capacity, keys) => {
          const map = new LruMap<number, number>(capacity);
          for (const key of keys) map.set(key, key);
          expect(map.size).toBeLessThanOrEqual(capacity);
          const last = keys.at(-1);
          if (last !== undefined) expect(map.get(last)).toBe(last);
        },
      ),
    );
  });

  it('forgets the least recently used entry first', () => {
    const map = new LruMap<string, number>(2);
    map.set('a', 1).set('b', 2);
    expect(map.get('a')).toBe(1);
    map.set('c', 3);
    expect(map.has('b')).toBe(false);
    expect(map.has('a')).toBe(true);
    expect(map.has('c')).toBe(true);
  });
});
