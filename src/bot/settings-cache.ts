import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import { LruMap } from '../core/lru-map.ts';
import type { ScopeSettings } from '../core/settings.ts';

/** Scopes kept in memory at most; the least recently used is read again when it comes back. */
export const SETTINGS_CACHE_CAPACITY = 10_000;

export interface SettingsCacheOptions {
  load(scopeId: string): Promise<ScopeSettings>;
  clock: Clock;
  logger: Logger;
  /** After this, a cached entry is still served but refreshed in the background (other processes may have changed it). */
  refreshAfterMs: number;
  /** Default SETTINGS_CACHE_CAPACITY. */
  capacity?: number;
}

interface Entry {
  settings: ScopeSettings;
  loadedAt: number;
}

/**
 * Scope settings in memory: one database read per scope on first use, then served from memory
 * on every message (anchor fault 14: three queries per message). Changes made by this process
 * are written through with `store`; changes made by another process are picked up by a
 * background refresh, never by blocking a message on the database.
 */
export class SettingsCache {
  private readonly entries: LruMap<string, Entry>;
  private readonly loading = new Map<string, Promise<ScopeSettings>>();
  private readonly options: SettingsCacheOptions;

  constructor(options: SettingsCacheOptions) {
    this.options = options;
    this.entries = new LruMap(options.capacity ?? SETTINGS_CACHE_CAPACITY);
  }

  async get(scopeId: string): Promise<ScopeSettings> {
    const entry = this.entries.get(scopeId);
    if (entry === undefined) return this.load(scopeId);
    if (this.options.clock.now() - entry.loadedAt >= this.options.refreshAfterMs) {
      this.load(scopeId).catch((error: unknown) =>
        this.options.logger.warn(
          { err: error, scopeId },
          'settings refresh failed; serving cached settings',
        ),
      );
    }
    return entry.settings;
  }

  /** The settings in memory, if any, without touching the database (stale is fine). */
  peek(scopeId: string): ScopeSettings | undefined {
    return this.entries.get(scopeId)?.settings;
  }

  /** Writes through after this process changed a scope's settings. */
  store(settings: ScopeSettings): void {
    const current = this.entries.get(settings.scopeId);
    if (current !== undefined && current.settings.version > settings.version) {
      current.loadedAt = this.options.clock.now();
      return;
    }
    this.entries.set(settings.scopeId, { settings, loadedAt: this.options.clock.now() });
  }

  invalidate(scopeId: string): void {
    this.entries.delete(scopeId);
  }

  private load(scopeId: string): Promise<ScopeSettings> {
    const inFlight = this.loading.get(scopeId);
    if (inFlight !== undefined) return inFlight;
    const loading = this.options
      .load(scopeId)
      .then((settings) => {
        this.store(settings);
        return this.entries.get(scopeId)?.settings ?? settings;
      })
      .finally(() => this.loading.delete(scopeId));
    this.loading.set(scopeId, loading);
    return loading;
  }
}
