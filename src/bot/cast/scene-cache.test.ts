import { describe, expect, it } from 'vitest';
import type { Character } from '../../core/character.ts';
import { silentLogger } from '../../core/logger.ts';
import { ManualClock } from '../../stream/testing/manual-clock.ts';
import { SceneCache } from './scene-cache.ts';

const REFRESH_MS = 60_000;
const alice = { id: 'c-alice', name: 'Alice' } as Character;

/** A scene cache over counted reads: `stages` says whether any channel has a stage. */
function counted(stages: { inUse: boolean; scenes: Map<string, Character[]> }) {
  const reads = { gate: 0, channels: [] as string[] };
  const announced: string[] = [];
  const clock = new ManualClock();
  const cache = new SceneCache({
    load: (channelId) => {
      reads.channels.push(channelId);
      return Promise.resolve(stages.scenes.get(channelId) ?? []);
    },
    anyInUse: () => {
      reads.gate += 1;
      return Promise.resolve(stages.inUse);
    },
    clock,
    logger: silentLogger,
    refreshAfterMs: REFRESH_MS,
    announce: (channelId) => announced.push(channelId),
  });
  return { cache, reads, announced, clock };
}

describe('SceneCache', () => {
  it('reads no channel while no stage is in use anywhere: one gate read for all', async () => {
    const { cache, reads } = counted({ inUse: false, scenes: new Map() });
    for (let channel = 0; channel < 50; channel += 1) {
      expect((await cache.get(`ch-${channel}`)).characters).toEqual([]);
    }
    expect(reads).toEqual({ gate: 1, channels: [] });
  });

  it('reads each channel once when stages are in use', async () => {
    const { cache, reads } = counted({ inUse: true, scenes: new Map([['ch-1', [alice]]]) });
    expect((await cache.get('ch-1')).characters).toEqual([alice]);
    expect((await cache.get('ch-1')).characters).toEqual([alice]);
    expect((await cache.get('ch-2')).characters).toEqual([]);
    expect(reads).toEqual({ gate: 1, channels: ['ch-1', 'ch-2'] });
  });

  it('opens the gate at once for a stage this process writes, and announces the channel', async () => {
    const stages = { inUse: false, scenes: new Map<string, Character[]>() };
    const { cache, reads, announced } = counted(stages);
    expect((await cache.get('ch-1')).characters).toEqual([]);
    stages.inUse = true;
    stages.scenes.set('ch-1', [alice]);
    cache.written({ channelId: 'ch-1', characters: [alice] });
    expect(announced).toEqual(['ch-1']);
    expect((await cache.get('ch-1')).characters).toEqual([alice]);
    // Another channel is read now: the gate is open.
    stages.scenes.set('ch-2', [alice]);
    expect((await cache.get('ch-2')).characters).toEqual([alice]);
    expect(reads.gate).toBe(1);
  });

  it("looks again after another process's announcement, or a clear", async () => {
    const stages = { inUse: false, scenes: new Map<string, Character[]>() };
    const { cache, reads } = counted(stages);
    await cache.get('ch-1');
    stages.inUse = true;
    stages.scenes.set('ch-1', [alice]);
    cache.changedElsewhere('ch-1');
    expect((await cache.get('ch-1')).characters).toEqual([alice]);
    expect(reads.gate).toBe(2);
    cache.clear();
    await cache.get('ch-1');
    expect(reads.gate).toBe(3);
  });

  it('refreshes a closed gate in the background after the refresh interval', async () => {
    const stages = { inUse: false, scenes: new Map<string, Character[]>() };
    const { cache, reads, clock } = counted(stages);
    await cache.get('ch-1');
    stages.inUse = true;
    stages.scenes.set('ch-1', [alice]);
    await clock.advance(REFRESH_MS);
    // Served from memory while the gate is read again; the next use sees the stage.
    expect((await cache.get('ch-1')).characters).toEqual([]);
    // The background read settles within the pending promise jobs (no timer: setImmediate runs
    // once they have all run).
    await new Promise((resolve) => setImmediate(resolve));
    expect((await cache.get('ch-1')).characters).toEqual([alice]);
    expect(reads.gate).toBe(2);
  });
});
