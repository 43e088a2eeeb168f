import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../core/logger.ts';
import { defaultScopeSettings, type ScopeSettings } from '../../core/settings.ts';
import { ManualClock, settle } from '../../stream/testing/manual-clock.ts';
import { SettingsCache } from './settings-cache.ts';

function harness(capacity?: number) {
  const clock = new ManualClock();
  const stored = new Map<string, ScopeSettings>();
  const announced: Array<{ scopeId: string; version: number }> = [];
  let loads = 0;
  const cache = new SettingsCache({
    clock,
    logger: silentLogger,
    refreshAfterMs: 30_000,
    announce: (change) => announced.push(change),
    ...(capacity === undefined ? {} : { capacity }),
    load: (scopeId) => {
      loads += 1;
      return Promise.resolve(stored.get(scopeId) ?? defaultScopeSettings(scopeId));
    },
  });
  return { cache, clock, stored, announced, loads: () => loads };
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

  it('announces a write of this process to the others, but not its own reads', async () => {
    const { cache, announced } = harness();
    await cache.get('g');
    expect(announced).toEqual([]);
    cache.store({ ...defaultScopeSettings('g'), version: 4 });
    cache.store({ ...defaultScopeSettings('g'), version: 4 });
    expect(announced).toEqual([{ scopeId: 'g', version: 4 }]);
  });

  it('drops a copy older than another process announced, and reads the new one on next use', async () => {
    const { cache, stored, loads } = harness();
    stored.set('g', { ...defaultScopeSettings('g'), model: 'old', version: 1 });
    expect((await cache.get('g')).model).toBe('old');
    stored.set('g', { ...defaultScopeSettings('g'), model: 'new', version: 2 });
    cache.changedElsewhere({ scopeId: 'g', version: 2 });
    expect((await cache.get('g')).model).toBe('new');
    // Its own announcement coming back (or a late duplicate) changes nothing.
    cache.changedElsewhere({ scopeId: 'g', version: 2 });
    await cache.get('g');
    expect(loads()).toBe(2);
  });

  it('forgets every scope when announcements may have been missed', async () => {
    const { cache, loads } = harness();
    await cache.get('g');
    await cache.get('h');
    cache.clear();
    await cache.get('g');
    expect(loads()).toBe(3);
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
