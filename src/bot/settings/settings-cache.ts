import type { ChannelOverrides } from '../../core/channel-settings.ts';
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import { LruMap } from '../../core/lru-map.ts';
import type { ScopeSettings } from '../../core/settings.ts';

/** Scopes kept in memory at most; the least recently used is read again when it comes back. */
export const SETTINGS_CACHE_CAPACITY = 10_000;
/** Channels kept in memory at most, likewise. */
export const CHANNEL_SETTINGS_CACHE_CAPACITY = 20_000;

/**
 * How the cache tells the newer of two copies of one key's value; the newer one is kept.
 * - `version`: every write raises the value's version (scope settings), so a copy never
 *   replaces a higher version, however late it arrives, and another process's announcement
 *   names the version it wrote.
 * - `write-order`: the value has no version (channel overrides), so a copy is ordered by the
 *   cache's write generation: a write through this process outranks every read begun before
 *   it, and another process's announcement drops the copy.
 */
export type Freshness<Value> =
  { by: 'version'; versionOf(value: Value): number } | { by: 'write-order' };

export interface SettingsCacheOptions<Key, Value> {
  load(key: Key): Promise<Value>;
  keyOf(value: Value): Key;
  freshness: Freshness<Value>;
  clock: Clock;
  logger: Logger;
  /**
   * After this, a cached entry is still served but refreshed in the background (another
   * process may have changed it and its announcement may have been lost).
   */
  refreshAfterMs: number;
  capacity: number;
  /** Names the cache in its log lines: what it holds, and the log field its key goes in. */
  logAs: { what: string; keyField: string };
  /** Tells the other processes sharing the database that this one wrote a value. */
  announce?: ((value: Value) => void) | undefined;
}

interface Entry<Value> {
  value: Value;
  loadedAt: number;
  /** The copy's version, or the write generation it was read or written at (see Freshness). */
  stamp: number;
}

/**
 * Settings in memory, per key (a scope, a channel): one database read per key on first use,
 * however many messages arrive at once, then served from memory on every message; a message
 * never waits on the database for a refresh. This process's writes are kept through
 * (`written`) and announced; another process's announcement drops the stale copy
 * (`changedElsewhere`), and a background refresh catches any announcement that was lost.
 */
export class SettingsCache<Key, Value> {
  readonly #options: SettingsCacheOptions<Key, Value>;
  readonly #entries: LruMap<Key, Entry<Value>>;
  readonly #loading = new Map<Key, Promise<Value>>();
  /** Raised by every write through and every drop: a read begun before it is older. */
  #generation = 0;

  constructor(options: SettingsCacheOptions<Key, Value>) {
    this.#options = options;
    this.#entries = new LruMap(options.capacity);
  }

  async get(key: Key): Promise<Value> {
    const entry = this.#entries.get(key);
    if (entry === undefined) return this.#load(key);
    if (this.#options.clock.now() - entry.loadedAt >= this.#options.refreshAfterMs) {
      this.#load(key).catch((error: unknown) => {
        const { what, keyField } = this.#options.logAs;
        this.#options.logger.warn(
          { err: error, [keyField]: key },
          `${what} refresh failed; serving cached ${what}`,
        );
      });
    }
    return entry.value;
  }

  /** The value in memory, if any, without touching the database (stale is fine). */
  peek(key: Key): Value | undefined {
    return this.#entries.get(key)?.value;
  }

  /** Keeps a copy this process just read from the database: no news for anyone else. */
  store(value: Value): void {
    this.#putThrough(value);
  }

  /**
   * Keeps a copy this process just wrote, and tells the other processes, unless the cache
   * already held that version (a second store of one write is no news).
   */
  written(value: Value): void {
    if (this.#putThrough(value)) this.#options.announce?.(value);
  }

  /**
   * Another process wrote the key's value (`version`: the one it wrote, for values ordered by
   * version): the copy held goes unless it is already as new, and so does a read under way,
   * which may have begun before that write. True when a copy went.
   */
  changedElsewhere(key: Key, version?: number): boolean {
    const entry = this.#entries.get(key);
    const asNew =
      this.#options.freshness.by === 'version' &&
      version !== undefined &&
      entry !== undefined &&
      entry.stamp >= version;
    if (asNew) return false;
    this.invalidate(key);
    return entry !== undefined;
  }

  /** Forgets the key, and any read of it under way: the next use reads it again. */
  invalidate(key: Key): void {
    this.#generation += 1;
    this.#entries.delete(key);
    this.#loading.delete(key);
  }

  /** Forgets every key (announcements may have been missed): each is read again on use. */
  clear(): void {
    this.#generation += 1;
    this.#entries.clear();
    this.#loading.clear();
  }

  /** Keeps a copy from this process's own write or read; true when it is newer than the one held. */
  #putThrough(value: Value): boolean {
    const key = this.#options.keyOf(value);
    const held = this.#entries.get(key);
    this.#generation += 1;
    const stamp = this.#stampOf(value, this.#generation);
    this.#keep(key, value, stamp);
    return held === undefined || stamp > held.stamp;
  }

  #load(key: Key): Promise<Value> {
    const inFlight = this.#loading.get(key);
    if (inFlight !== undefined) return inFlight;
    const startedAt = this.#generation;
    const loading: Promise<Value> = this.#options
      .load(key)
      .then((value) =>
        // Dropped while on its way: what it read may be what the drop was about.
        this.#loading.get(key) === loading
          ? this.#keep(key, value, this.#stampOf(value, startedAt))
          : value,
      )
      .finally(() => {
        if (this.#loading.get(key) === loading) this.#loading.delete(key);
      });
    this.#loading.set(key, loading);
    return loading;
  }

  /** Holds `value` unless the copy held is newer; returns the copy held after. */
  #keep(key: Key, value: Value, stamp: number): Value {
    const held = this.#entries.get(key);
    if (held !== undefined && held.stamp > stamp) return held.value;
    this.#entries.set(key, { value, loadedAt: this.#options.clock.now(), stamp });
    return value;
  }

  #stampOf(value: Value, generation: number): number {
    const { freshness } = this.#options;
    return freshness.by === 'version' ? freshness.versionOf(value) : generation;
  }
}

export type ScopeSettingsCache = SettingsCache<string, ScopeSettings>;
export type ChannelSettingsCache = SettingsCache<string, ChannelOverrides>;

interface CacheSetup<Value> {
  load: (key: string) => Promise<Value>;
  clock: Clock;
  logger: Logger;
  refreshAfterMs: number;
  /** Default: the cache's own capacity constant. */
  capacity?: number | undefined;
}

/** Scope settings, ordered by their version. */
export function scopeSettingsCache(
  options: CacheSetup<ScopeSettings> & {
    /**
     * Tells the other processes that this one wrote a scope's settings (the control bus):
     * their cached copies older than `version` are dropped at once instead of at their next
     * refresh.
     */
    announce?: (change: { scopeId: string; version: number }) => void;
  },
): ScopeSettingsCache {
  const { announce } = options;
  return new SettingsCache({
    load: options.load,
    keyOf: (settings) => settings.scopeId,
    freshness: { by: 'version', versionOf: (settings) => settings.version },
    clock: options.clock,
    logger: options.logger,
    refreshAfterMs: options.refreshAfterMs,
    capacity: options.capacity ?? SETTINGS_CACHE_CAPACITY,
    logAs: { what: 'settings', keyField: 'scopeId' },
    announce:
      announce &&
      ((settings) => announce({ scopeId: settings.scopeId, version: settings.version })),
  });
}

/** Channel overrides, ordered by write generation (they carry no version). */
export function channelSettingsCache(
  options: CacheSetup<ChannelOverrides> & {
    /** Tells the other processes that this one wrote a channel's overrides (the control bus). */
    announce?: (channelId: string) => void;
  },
): ChannelSettingsCache {
  const { announce } = options;
  return new SettingsCache({
    load: options.load,
    keyOf: (overrides) => overrides.channelId,
    freshness: { by: 'write-order' },
    clock: options.clock,
    logger: options.logger,
    refreshAfterMs: options.refreshAfterMs,
    capacity: options.capacity ?? CHANNEL_SETTINGS_CACHE_CAPACITY,
    logAs: { what: 'channel settings', keyField: 'channelId' },
    announce: announce && ((overrides) => announce(overrides.channelId)),
  });
}
