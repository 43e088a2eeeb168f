import { describe, expect, it } from 'vitest';
import { noChannelOverrides, type ChannelOverrides } from '../../core/channel-settings.ts';
import { silentLogger } from '../../core/logger.ts';
import { ManualClock, settle } from '../../stream/testing/manual-clock.ts';
import { ChannelSettingsCache } from './channel-settings-cache.ts';

function harness() {
  const clock = new ManualClock();
  const stored = new Map<string, ChannelOverrides>();
  const pending: Array<() => void> = [];
  let loads = 0;
  let holdLoads = false;
  const cache = new ChannelSettingsCache({
    clock,
    logger: silentLogger,
    refreshAfterMs: 30_000,
    load: (channelId) => {
      loads += 1;
      const value = stored.get(channelId) ?? noChannelOverrides(channelId);
      if (!holdLoads) return Promise.resolve(value);
      return new Promise((resolve) => pending.push(() => resolve(value)));
    },
  });
  return {
    cache,
    clock,
    stored,
    loads: () => loads,
    hold: () => (holdLoads = true),
    releaseAll: () => pending.splice(0).forEach((release) => release()),
  };
}

describe('ChannelSettingsCache', () => {
  it('reads a channel once, however many turns start at once', async () => {
    const { cache, loads } = harness();
    await Promise.all(Array.from({ length: 20 }, () => cache.get('c')));
    await cache.get('c');
    expect(loads()).toBe(1);
  });

  it('serves this process’s write at once and picks up another’s after the refresh interval', async () => {
    const { cache, clock, stored } = harness();
    await cache.get('c');
    cache.store({ channelId: 'c', persona: undefined, humanizerDegree: 3 });
    expect((await cache.get('c')).humanizerDegree).toBe(3);
    stored.set('c', { channelId: 'c', persona: undefined, humanizerDegree: 0 });
    await clock.advance(30_000);
    expect((await cache.get('c')).humanizerDegree).toBe(3);
    await settle();
    expect((await cache.get('c')).humanizerDegree).toBe(0);
  });

  it('never lets a read begun before a write replace that write', async () => {
    const { cache, clock, hold, releaseAll } = harness();
    await cache.get('c');
    hold();
    await clock.advance(30_000);
    await cache.get('c'); // starts a background refresh that will answer "no overrides"
    cache.store({ channelId: 'c', persona: undefined, humanizerDegree: 2 });
    releaseAll();
    await settle();
    expect((await cache.get('c')).humanizerDegree).toBe(2);
  });
});
