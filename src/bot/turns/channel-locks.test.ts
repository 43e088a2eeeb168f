import { describe, expect, it } from 'vitest';
import { ManualClock, settle } from '../../stream/testing/manual-clock.ts';
import { ChannelLocks } from './channel-locks.ts';

describe('ChannelLocks', () => {
  it('serializes holders of one channel and lets other channels run', async () => {
    const locks = new ChannelLocks({ clock: new ManualClock(), holdTimeoutMs: 60_000 });
    const first = await locks.acquire('a');
    const other = await locks.acquire('b');
    let secondAcquired = false;
    const second = locks.acquire('a').then((lease) => {
      secondAcquired = true;
      return lease;
    });
    await settle();
    expect(secondAcquired).toBe(false);
    expect(locks.isBusy('a')).toBe(true);
    first.release();
    const lease = await second;
    expect(secondAcquired).toBe(true);
    lease.release();
    other.release();
    expect(locks.isBusy('a')).toBe(false);
  });

  it('never lets a stale holder release the next holder after a forced timeout', async () => {
    const clock = new ManualClock();
    const locks = new ChannelLocks({ clock, holdTimeoutMs: 1_000 });
    const stale = await locks.acquire('a');
    const next = locks.acquire('a');
    await clock.advance(1_000);
    expect(stale.signal.aborted).toBe(true);
    const current = await next;
    stale.release();
    expect(locks.isBusy('a')).toBe(true);
    let thirdAcquired = false;
    void locks.acquire('a').then(() => {
      thirdAcquired = true;
    });
    await settle();
    expect(thirdAcquired).toBe(false);
    current.release();
    await settle();
    expect(thirdAcquired).toBe(true);
  });

  it('treats a double release as a no-op', async () => {
    const locks = new ChannelLocks({ clock: new ManualClock(), holdTimeoutMs: 1_000 });
    const first = await locks.acquire('a');
    first.release();
    const second = await locks.acquire('a');
    first.release();
    expect(locks.isBusy('a')).toBe(true);
    second.release();
    expect(locks.isBusy('a')).toBe(false);
  });

  it('cancels the hold timer on release so no sleeper is left behind', async () => {
    const clock = new ManualClock();
    const locks = new ChannelLocks({ clock, holdTimeoutMs: 1_000 });
    const lease = await locks.acquire('a');
    expect(clock.pendingSleeps()).toHaveLength(1);
    lease.release();
    expect(clock.pendingSleeps()).toHaveLength(0);
  });
});
