import type { ChannelOverrides } from '../../core/channel-settings.ts';
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import { LruMap } from '../../core/lru-map.ts';

/** Channels kept in memory at most; the least recently used is read again when it comes back. */
export const CHANNEL_SETTINGS_CACHE_CAPACITY = 20_000;

export interface ChannelSettingsCacheOptions {
  load(channelId: string): Promise<ChannelOverrides>;
  clock: Clock;
  logger: Logger;
  /** After this, a cached entry is still served but refreshed in the background. */
  refreshAfterMs: number;
  capacity?: number;
  /** Tells the other processes sharing the database that a channel's overrides were written. */
  announce?: (channelId: string) => void;
}

interface Entry {
  overrides: ChannelOverrides;
  loadedAt: number;
  /** Bumped by every write through: a refresh begun before a write never undoes it. */
  generation: number;
}

/**
 * Channel overrides in memory, like the SettingsCache for scopes: one read per channel on first
 * use, then served from memory (anchor fault 14); this process's writes are stored through and
 * announced, so another process drops its copy at once (the background refresh is the backstop
 * for an announcement that was lost).
 */
export class ChannelSettingsCache {
  private readonly entries: LruMap<string, Entry>;
  private readonly loading = new Map<string, Promise<ChannelOverrides>>();
  private readonly options: ChannelSettingsCacheOptions;
  private generation = 0;

  constructor(options: ChannelSettingsCacheOptions) {
    this.options = options;
    this.entries = new LruMap(options.capacity ?? CHANNEL_SETTINGS_CACHE_CAPACITY);
  }

  async get(channelId: string): Promise<ChannelOverrides> {
    const entry = this.entries.get(channelId);
    if (entry === undefined) return this.load(channelId);
    if (this.options.clock.now() - entry.loadedAt >= this.options.refreshAfterMs) {
      this.load(channelId).catch((error: unknown) =>
        this.options.logger.warn(
          { err: error, channelId },
          'channel settings refresh failed; serving cached ones',
        ),
      );
    }
    return entry.overrides;
  }

  /** Writes through after this process changed a channel's overrides, and tells the others. */
  written(overrides: ChannelOverrides): void {
    this.store(overrides);
    this.options.announce?.(overrides.channelId);
  }

  /** Another process changed the channel's overrides: the next use reads them again. */
  changedElsewhere(channelId: string): void {
    this.generation += 1;
    this.entries.delete(channelId);
    this.loading.delete(channelId);
  }

  /** The bus was away (announcements missed): every channel is read again on its next use. */
  clear(): void {
    this.generation += 1;
    this.entries.clear();
    this.loading.clear();
  }

  /** Keeps overrides just read from the database (no write: nobody else needs telling). */
  store(overrides: ChannelOverrides): void {
    this.generation += 1;
    this.entries.set(overrides.channelId, {
      overrides,
      loadedAt: this.options.clock.now(),
      generation: this.generation,
    });
  }

  private load(channelId: string): Promise<ChannelOverrides> {
    const inFlight = this.loading.get(channelId);
    if (inFlight !== undefined) return inFlight;
    const startedAt = this.generation;
    const loading = this.options
      .load(channelId)
      .then((overrides) => {
        const current = this.entries.get(channelId);
        // Written through while this read was on its way: the write is newer.
        if (current !== undefined && current.generation > startedAt) return current.overrides;
        this.entries.set(channelId, {
          overrides,
          loadedAt: this.options.clock.now(),
          generation: startedAt,
        });
        return overrides;
      })
      .finally(() => this.loading.delete(channelId));
    this.loading.set(channelId, loading);
    return loading;
  }
}
