import { describe, expect, it } from 'vitest';
import { noChannelOverrides, type ChannelOverrides } from '../../core/channel-settings.ts';
import { silentLogger } from '../../core/logger.ts';
import { defaultScopeSettings, type ScopeSettings } from '../../core/settings.ts';
import { ManualClock, settle } from '../../stream/testing/manual-clock.ts';
import { channelSettingsCache, scopeSettingsCache } from './settings-cache.ts';

/** The database behind a cache: `stored` values, read one at a time or held until released. */
function database<Value>(fallback: (key: string) => Value) {
  const stored = new Map<string, Value>();
  const pending: Array<() => void> = [];
  let loads = 0;
  let holding = false;
  return {
    stored,
    loads: () => loads,
    hold: () => (holding = true),
    /** Answers the held reads, the oldest first. */
    releaseAll: () => {
      holding = false;
      for (const release of pending.splice(0)) release();
    },
    load: (key: string): Promise<Value> => {
      loads += 1;
      const value = stored.get(key) ?? fallback(key);
      if (!holding) return Promise.resolve(value);
      return new Promise((resolve) => pending.push(() => resolve(value)));
    },
  };
}

function scopeHarness(capacity?: number) {
  const clock = new ManualClock();
  const db = database(defaultScopeSettings);
  const announced: Array<{ scopeId: string; version: number }> = [];
  const cache = scopeSettingsCache({
    clock,
    logger: silentLogger,
    refreshAfterMs: 30_000,
    announce: (change) => announced.push(change),
    capacity,
    load: db.load,
  });
  return { cache, clock, announced, ...db };
}

function channelHarness() {
  const clock = new ManualClock();
  const db = database(noChannelOverrides);
  const announced: string[] = [];
  const cache = channelSettingsCache({
    clock,
    logger: silentLogger,
    refreshAfterMs: 30_000,
    announce: (channelId) => announced.push(channelId),
    load: db.load,
  });
  return { cache, clock, announced, ...db };
}

const settingsAt = (version: number, fields: Partial<ScopeSettings> = {}): ScopeSettings => ({
  ...defaultScopeSettings('g'),
  ...fields,
  version,
});
const overrides = (humanizerDegree: ChannelOverrides['humanizerDegree']): ChannelOverrides => ({
  channelId: 'c',
  persona: undefined,
  humanizerDegree,
});

describe('either settings cache', () => {
  it.each([
    { kind: 'scope', harness: scopeHarness, key: 'g' },
    { kind: 'channel', harness: channelHarness, key: 'c' },
  ])('reads a $kind once, however many messages arrive at once', async ({ harness, key }) => {
    const { cache, loads } = harness();
    await Promise.all(Array.from({ length: 50 }, () => cache.get(key)));
    await cache.get(key);
    expect(loads()).toBe(1);
  });
});

describe('the scope settings cache (copies ordered by version)', () => {
  it('serves writes from this process immediately', async () => {
    const { cache, loads } = scopeHarness();
    await cache.get('g');
    cache.written(settingsAt(2, { humanizerDegree: 3 }));
    expect((await cache.get('g')).humanizerDegree).toBe(3);
    expect(loads()).toBe(1);
  });

  it('announces a write of this process to the others, but not its own reads', async () => {
    const { cache, announced } = scopeHarness();
    await cache.get('g');
    expect(announced).toEqual([]);
    cache.written(settingsAt(4));
    cache.written(settingsAt(4));
    expect(announced).toEqual([{ scopeId: 'g', version: 4 }]);
  });

  it('does not announce settings it re-read from the database, even a newer version', async () => {
    const { cache, announced } = scopeHarness();
    cache.store(settingsAt(3));
    expect((await cache.get('g')).version).toBe(3);
    expect(announced).toEqual([]);
  });

  it('drops a copy older than another process announced, and reads the new one on next use', async () => {
    const { cache, stored, loads } = scopeHarness();
    stored.set('g', settingsAt(1, { model: 'old' }));
    expect((await cache.get('g')).model).toBe('old');
    stored.set('g', settingsAt(2, { model: 'new' }));
    expect(cache.changedElsewhere('g', 2)).toBe(true);
    expect((await cache.get('g')).model).toBe('new');
    // Its own announcement coming back (or a late duplicate) changes nothing.
    expect(cache.changedElsewhere('g', 2)).toBe(false);
    await cache.get('g');
    expect(loads()).toBe(2);
  });

  it('does not serve a read begun before another process announced its change', async () => {
    const { cache, stored, hold, releaseAll } = scopeHarness();
    stored.set('g', settingsAt(1, { model: 'old' }));
    hold();
    const first = cache.get('g'); // reads version 1, slowly
    stored.set('g', settingsAt(2, { model: 'new' }));
    cache.changedElsewhere('g', 2);
    const second = cache.get('g');
    releaseAll();
    expect((await first).model).toBe('old');
    expect((await second).model).toBe('new');
    expect((await cache.get('g')).model).toBe('new');
  });

  it('forgets every scope when announcements may have been missed', async () => {
    const { cache, loads } = scopeHarness();
    await cache.get('g');
    await cache.get('h');
    cache.clear();
    await cache.get('g');
    expect(loads()).toBe(3);
  });

  it('picks up another process change in the background after the refresh interval', async () => {
    const { cache, clock, stored, loads } = scopeHarness();
    await cache.get('g');
    stored.set('g', settingsAt(5, { personaName: 'Mika' }));
    await clock.advance(30_000);
    expect((await cache.get('g')).personaName).toBeUndefined();
    await settle();
    expect((await cache.get('g')).personaName).toBe('Mika');
    expect(loads()).toBe(2);
  });

  it('never replaces newer settings with an older version', async () => {
    const { cache } = scopeHarness();
    cache.written(settingsAt(7, { personaName: 'new' }));
    cache.written(settingsAt(6, { personaName: 'old' }));
    expect((await cache.get('g')).personaName).toBe('new');
  });

  it('never lets a late read of an older version replace a newer write', async () => {
    const { cache, clock, stored, hold, releaseAll } = scopeHarness();
    stored.set('g', settingsAt(1, { personaName: 'old' }));
    await cache.get('g');
    hold();
    await clock.advance(30_000);
    await cache.get('g'); // starts a background refresh that will answer version 1
    cache.written(settingsAt(2, { personaName: 'new' }));
    releaseAll();
    await settle();
    expect((await cache.get('g')).personaName).toBe('new');
  });

  it('keeps at most its capacity of scopes, reading a forgotten one again', async () => {
    const { cache, loads } = scopeHarness(2);
    await cache.get('a');
    await cache.get('b');
    await cache.get('a');
    await cache.get('c'); // forgets b, the least recently used
    expect(loads()).toBe(3);
    await cache.get('a');
    expect(loads()).toBe(3);
    await cache.get('b');
    expect(loads()).toBe(4);
  });
});

describe('the channel settings cache (copies ordered by write)', () => {
  it('serves this process’s write at once and picks up another’s after the refresh interval', async () => {
    const { cache, clock, stored } = channelHarness();
    await cache.get('c');
    cache.store(overrides(3));
    expect((await cache.get('c')).humanizerDegree).toBe(3);
    stored.set('c', overrides(0));
    await clock.advance(30_000);
    expect((await cache.get('c')).humanizerDegree).toBe(3);
    await settle();
    expect((await cache.get('c')).humanizerDegree).toBe(0);
  });

  it('never lets a read begun before a write replace that write', async () => {
    const { cache, clock, hold, releaseAll } = channelHarness();
    await cache.get('c');
    hold();
    await clock.advance(30_000);
    await cache.get('c'); // starts a background refresh that will answer "no overrides"
    cache.store(overrides(2));
    releaseAll();
    await settle();
    expect((await cache.get('c')).humanizerDegree).toBe(2);
  });

  it('announces every write of this process, but not what it read', async () => {
    const { cache, announced } = channelHarness();
    await cache.get('c');
    cache.store(overrides(1));
    cache.written(overrides(2));
    cache.written(overrides(2));
    expect(announced).toEqual(['c', 'c']);
  });

  it('drops its copy when another process announces a change, and reads it again on next use', async () => {
    const { cache, stored, loads } = channelHarness();
    await cache.get('c');
    stored.set('c', overrides(3));
    cache.changedElsewhere('c');
    expect((await cache.get('c')).humanizerDegree).toBe(3);
    expect(loads()).toBe(2);
  });

  it('does not keep a read begun before another process announced its change', async () => {
    const { cache, stored, hold, releaseAll } = channelHarness();
    hold();
    const first = cache.get('c'); // reads "no overrides", slowly
    stored.set('c', overrides(3));
    cache.changedElsewhere('c');
    releaseAll();
    expect((await first).humanizerDegree).toBeUndefined();
    expect((await cache.get('c')).humanizerDegree).toBe(3);
  });
});
