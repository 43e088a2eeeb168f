import { describe, expect, it } from 'vitest';
import { ManualClock, settle } from '../../stream/testing/manual-clock.ts';
import { IdentifyGate } from './identify-gate.ts';

describe('IdentifyGate', () => {
  it('lets processes on different keys start together', async () => {
    const gate = new IdentifyGate({ clock: new ManualClock() });
    await gate.acquire({ keys: [0], holder: 0 });
    await gate.acquire({ keys: [1], holder: 1 });
  });

  it('holds a key from a start until its shards are ready, then 5 s more', async () => {
    const clock = new ManualClock();
    const gate = new IdentifyGate({ clock });
    await gate.acquire({ keys: [0], holder: 0 });
    let started = false;
    const second = gate.acquire({ keys: [0], holder: 2 }).then(() => {
      started = true;
    });
    await clock.advance(60_000);
    expect(started).toBe(false);
    gate.release(0);
    await clock.advance(4_999);
    expect(started).toBe(false);
    await clock.advance(1);
    await second;
    expect(started).toBe(true);
  });

  it('waits for every key of a several-shard process', async () => {
    const clock = new ManualClock();
    const gate = new IdentifyGate({ clock });
    await gate.acquire({ keys: [1], holder: 1 });
    let started = false;
    const both = gate.acquire({ keys: [0, 1], holder: 0 }).then(() => {
      started = true;
    });
    await settle();
    expect(started).toBe(false);
    gate.release(1);
    await clock.advance(5_000);
    await both;
    expect(started).toBe(true);
  });

  it('gives up waiting when the signal aborts (the manager is stopping)', async () => {
    const gate = new IdentifyGate({ clock: new ManualClock() });
    await gate.acquire({ keys: [0], holder: 0 });
    const stop = new AbortController();
    const waiting = gate.acquire({ keys: [0], holder: 4, signal: stop.signal });
    stop.abort();
    await expect(waiting).rejects.toThrow(/abort/i);
  });
});
