import { describe, expect, it } from 'vitest';
import { silentLogger } from '../core/logger.ts';
import { defaultScopeSettings, type ScopeSettings } from '../core/settings.ts';
import { ManualClock, settle } from '../stream/testing/manual-clock.ts';
import { SettingsCache } from './settings-cache.ts';

function harness(capacity?: number) {
  const clock = new ManualClock();
  const stored = new Map<string, ScopeSettings>();
  let loads = 0;
  const cache = new SettingsCache({
    clock,
    logger: silentLogger,
    refreshAfterMs: 30_000,
    ...(capacity === undefined ? {} : { capacity }),
    load: (scopeId) => {
      loads += 1;
      return Promise.resolve(stored.get(scopeId) ?? defaultScopeSettings(scopeId));
    },
  });
  return { cache, clock, stored, loads: () => loads };
}

describe('SettingsCache', () => {
  it('reads the database once per scope, however many messages arrive at once', async () => {
    const { cache, loads } = harness();
    await Promise.all(Array.from({ length: 50 }, () => cache.get('g')));
    await cache.get('g');
    expect(loads()).toBe(1);
  });

  it('serves writes from this process immediately', async () => {
    const { cache, loads } = harness();
    await cache.get('g');
    cache.store({ ...defaultScopeSettings('g'), humanizerDegree: 3, version: 2 });
    expect((await cache.get('g')).humanizerDegree).toBe(3);
    expect(loads()).toBe(1);
  });

  it('picks up another process change in the background after the refresh interval', async () => {
    const { cache, clock, stored, loads } = harness();
    await cache.get('g');
    stored.set('g', { ...defaultScopeSettings('g'), personaName: 'Mika', version: 5 });
    await clock.advance(30_000);
    expect((await cache.get('g')).personaName).toBeUndefined();
    await settle();
    expect((await cache.get('g')).personaName).toBe('Mika');
    expect(loads()).toBe(2);
  });

  it('never replaces newer settings with an older version', async () => {
    const { cache } = harness();
    cache.store({ ...defaultScopeSettings('g'), version: 7, personaName: 'new' });
    cache.store({ ...defaultScopeSettings('g'), version: 6, personaName: 'old' });
    expect((await cache.get('g')).personaName).toBe('new');
  });

  it('keeps at most its capacity of scopes, reading a forgotten one again', async () => {
    const { cache, loads } = harness(2);
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
