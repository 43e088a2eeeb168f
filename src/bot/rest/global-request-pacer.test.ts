import { describe, expect, it } from 'vitest';
import { ManualClock, settle } from '../../stream/testing/manual-clock.ts';
import { GlobalRequestPacer, processRequestsPerSecond } from './global-request-pacer.ts';

describe('GlobalRequestPacer', () => {
  it('never lets more than the limit start in any window, whatever its phase', async () => {
    const clock = new ManualClock(0);
    const pacer = new GlobalRequestPacer({ clock, limit: 8, windowMs: 1_000 });
    const started: number[] = [];
    const requests = Array.from({ length: 20 }, () =>
      pacer.acquire().then(() => started.push(clock.now())),
    );
    await settle();
    expect(started).toEqual([0, 0]);
    for (let step = 0; step < 60; step += 1) await clock.advance(50);
    await Promise.all(requests);
    expect(started).toHaveLength(20);
    for (const at of started) {
      expect(
        started.filter((other) => other >= at && other < at + 1_000).length,
      ).toBeLessThanOrEqual(8);
    }
  });

  it('spreads a burst over the quarters of the window instead of starting it all at once', async () => {
    const clock = new ManualClock(0);
    const pacer = new GlobalRequestPacer({ clock, limit: 8, windowMs: 1_000 });
    const started: number[] = [];
    const requests = Array.from({ length: 10 }, () =>
      pacer.acquire().then(() => started.push(clock.now())),
    );
    for (let step = 0; step < 30; step += 1) await clock.advance(50);
    await Promise.all(requests);
    expect(started).toEqual([0, 0, 250, 250, 500, 500, 750, 750, 1_000, 1_000]);
    for (const at of started) {
      expect(started.filter((other) => other >= at && other < at + 250).length).toBeLessThanOrEqual(
        2,
      );
    }
  });

  it('adds no wait while under the limit', async () => {
    const clock = new ManualClock(0);
    const pacer = new GlobalRequestPacer({ clock, limit: 2, windowMs: 1_000 });
    await pacer.acquire();
    await clock.advance(600);
    await pacer.acquire();
    await clock.advance(600);
    await pacer.acquire(); // the first has left the window
    expect(clock.now()).toBe(1_200);
  });

  it('gives each of several processes its share of 40 per second, never less than one', () => {
    expect(processRequestsPerSecond(1)).toBe(40);
    expect(processRequestsPerSecond(2)).toBe(20);
    expect(processRequestsPerSecond(3)).toBe(13);
    expect(3 * processRequestsPerSecond(3)).toBeLessThanOrEqual(40);
    expect(processRequestsPerSecond(100)).toBe(1);
    // A bot whose global limit Discord raised to 500 requests per second.
    expect(processRequestsPerSecond(4, 500)).toBe(100);
  });
});
