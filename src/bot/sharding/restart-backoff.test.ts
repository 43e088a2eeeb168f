import { describe, expect, it } from 'vitest';
import { RestartBackoff } from './restart-backoff.ts';

describe('RestartBackoff', () => {
  it('doubles from 1 s while a process keeps dying early, up to 60 s, and starts over after a stable run', () => {
    const backoff = new RestartBackoff();
    expect([1, 2, 3, 4, 5, 6, 7, 8].map(() => backoff.next(500))).toEqual([
      1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000,
    ]);
    expect(backoff.next(120_000)).toBe(1_000);
    expect(backoff.next(10)).toBe(2_000);
  });
});
