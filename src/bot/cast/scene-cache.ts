import type { Character } from '../../core/character.ts';
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import { SettingsCache } from '../settings/settings-cache.ts';

/** Who is on a channel's (or thread's) stage, in turn order. */
export interface ChannelScene {
  channelId: string;
  characters: readonly Character[];
}

export type SceneCache = SettingsCache<string, ChannelScene>;

/** Channels whose scene is kept in memory; most have none, which is cached as well. */
export const SCENE_CACHE_CAPACITY = 20_000;

/**
 * The scenes, as the settings are cached: one read per channel on first use, then memory on
 * every message (a channel with nobody on stage included). `/scene` and `/character` writes in
 * this process drop or replace the copy and are announced; another process's announcement drops
 * it; the background refresh catches a lost one.
 */
export function sceneCache(options: {
  load: (channelId: string) => Promise<readonly Character[]>;
  clock: Clock;
  logger: Logger;
  refreshAfterMs: number;
  capacity?: number;
  /** Tells the other processes that this one changed a channel's scene (the control bus). */
  announce?: (channelId: string) => void;
}): SceneCache {
  const { announce } = options;
  return new SettingsCache({
    load: async (channelId) => ({ channelId, characters: await options.load(channelId) }),
    keyOf: (scene) => scene.channelId,
    freshness: { by: 'write-order' },
    clock: options.clock,
    logger: options.logger,
    refreshAfterMs: options.refreshAfterMs,
    capacity: options.capacity ?? SCENE_CACHE_CAPACITY,
    logAs: { what: 'scene', keyField: 'channelId' },
    announce: announce && ((scene) => announce(scene.channelId)),
  });
}
