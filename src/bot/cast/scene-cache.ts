import type { Character } from '../../core/character.ts';
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import { SettingsCache } from '../settings/settings-cache.ts';

/** Who is on a channel's (or thread's) stage, in turn order. */
export interface ChannelScene {
  channelId: string;
  characters: readonly Character[];
}

/** Channels whose scene is kept in memory; most have none, which is cached as well. */
export const SCENE_CACHE_CAPACITY = 20_000;

/** The one key of the gate: whether any channel the database knows has a stage. */
const ANYWHERE = 'anywhere';

interface StagesInUse {
  key: typeof ANYWHERE;
  inUse: boolean;
}

export interface SceneCacheOptions {
  load: (channelId: string) => Promise<readonly Character[]>;
  /** Whether any channel has anyone on stage (one cheap statement). */
  anyInUse: () => Promise<boolean>;
  clock: Clock;
  logger: Logger;
  refreshAfterMs: number;
  capacity?: number;
  /** Tells the other processes that this one changed a channel's scene (the control bus). */
  announce?: (channelId: string) => void;
}

/**
 * The scenes, as the settings are cached: one read per channel on first use, then memory on
 * every message (a channel with nobody on stage included). `/scene` and `/character` writes in
 * this process drop or replace the copy and are announced; another process's announcement drops
 * it; the background refresh catches a lost one.
 *
 * Before any channel is read, a gate: while no channel anywhere has a stage — most bots, most of
 * the time — every channel's scene is empty without a read. A busy bot meets a thousand channels
 * in its first minutes; each cost a statement for an empty stage (1,000 of the bench's 1,133
 * statements in two rounds of ambient messages). A stage written here opens the gate at once;
 * another process's announcement makes it look again.
 */
export class SceneCache {
  readonly #scenes: SettingsCache<string, ChannelScene>;
  readonly #stages: SettingsCache<typeof ANYWHERE, StagesInUse>;

  constructor(options: SceneCacheOptions) {
    const { announce } = options;
    this.#scenes = new SettingsCache({
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
    this.#stages = new SettingsCache({
      load: async () => ({ key: ANYWHERE, inUse: await options.anyInUse() }),
      keyOf: (stages) => stages.key,
      freshness: { by: 'write-order' },
      clock: options.clock,
      logger: options.logger,
      refreshAfterMs: options.refreshAfterMs,
      capacity: 1,
      logAs: { what: 'stages in use', keyField: 'gate' },
    });
  }

  async get(channelId: string): Promise<ChannelScene> {
    const stages = await this.#stages.get(ANYWHERE);
    if (!stages.inUse) return { channelId, characters: [] };
    return this.#scenes.get(channelId);
  }

  /** The scene in memory, if any, without touching the database (stale is fine). */
  peek(channelId: string): ChannelScene | undefined {
    return this.#scenes.peek(channelId);
  }

  /** Keeps the stage this process just wrote, and tells the other processes. */
  written(scene: ChannelScene): void {
    if (scene.characters.length > 0) this.#stages.store({ key: ANYWHERE, inUse: true });
    this.#scenes.written(scene);
  }

  /** Another process changed the channel's stage: its copy goes, and the gate looks again. */
  changedElsewhere(channelId: string): void {
    this.#stages.invalidate(ANYWHERE);
    this.#scenes.changedElsewhere(channelId);
  }

  /** Forgets every stage and the gate (characters changed, or announcements were missed). */
  clear(): void {
    this.#stages.clear();
    this.#scenes.clear();
  }
}
