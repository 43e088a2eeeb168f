import { describe, expect, it } from 'vitest';
import { ManualClock, settle } from '../../stream/testing/manual-clock.ts';
import { IDENTIFY_WINDOW_MS } from './identify-gate.ts';
import {
  IDENTIFY_MARGIN_MS,
  SharedIdentifyThrottler,
  type IdentifySlots,
} from './shared-identify-throttler.ts';

/** The database's slots in memory: a key is free `windowMs` after it was last taken. */
class MemorySlots implements IdentifySlots {
  readonly taken: { key: number; at: number }[] = [];
  readonly #clock: ManualClock;
  readonly #last = new Map<number, number>();

  constructor(clock: ManualClock) {
    this.#clock = clock;
  }

  take(key: number, windowMs: number): Promise<number> {
    const last = this.#last.get(key);
    const now = this.#clock.now();
    if (last !== undefined && now - last < windowMs) return Promise.resolve(last + windowMs - now);
    this.#last.set(key, now);
    this.taken.push({ key, at: now });
    return Promise.resolve(0);
  }
}

describe('SharedIdentifyThrottler', () => {
  it('lets max_concurrency shards identify at once and the next wave 5 s (and a margin) later', async () => {
    const clock = new ManualClock();
    const slots = new MemorySlots(clock);
    // Two "processes" with their own throttler on the same slots, as on two hosts.
    const first = new SharedIdentifyThrottler({ slots, clock, maxConcurrency: 2 });
    const second = new SharedIdentifyThrottler({ slots, clock, maxConcurrency: 2 });
    const signal = new AbortController().signal;
    const identified: number[] = [];
    const waits = [
      first.waitForIdentify(0, signal).then(() => identified.push(0)),
      first.waitForIdentify(1, signal).then(() => identified.push(1)),
      second.waitForIdentify(2, signal).then(() => identified.push(2)),
      second.waitForIdentify(3, signal).then(() => identified.push(3)),
    ];
    await settle();
    expect(identified.sort()).toEqual([0, 1]);
    const windowMs = IDENTIFY_WINDOW_MS + IDENTIFY_MARGIN_MS;
    await clock.advance(windowMs - 1);
    expect(identified).toHaveLength(2);
    await clock.advance(1);
    await Promise.all(waits);
    expect(slots.taken.map((slot) => slot.at - (slots.taken[0]?.at ?? 0))).toEqual([
      0,
      0,
      windowMs,
      windowMs,
    ]);
  });

  it('stops waiting when discord.js aborts the connection attempt', async () => {
    const clock = new ManualClock();
    const slots = new MemorySlots(clock);
    const throttler = new SharedIdentifyThrottler({ slots, clock, maxConcurrency: 1 });
    await throttler.waitForIdentify(0, new AbortController().signal);
    const abort = new AbortController();
    const waiting = throttler.waitForIdentify(1, abort.signal);
    await settle();
    abort.abort();
    await expect(waiting).rejects.toThrow(/abort/i);
  });
});
