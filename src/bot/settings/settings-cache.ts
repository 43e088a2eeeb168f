import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import { LruMap } from '../../core/lru-map.ts';
import type { ScopeSettings } from '../../core/settings.ts';

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
  /**
   * Tells the other processes that this one wrote a scope's settings (the control bus): their
   * cached copies older than `version` are dropped at once instead of at their next refresh.
   */
  announce?(change: { scopeId: string; version: number }): void;
}

interface Entry {
  settings: ScopeSettings;
  loadedAt: number;
}

/**
 * Scope settings in memory: one database read per scope on first use, then served from memory
 * on every message (anchor fault 14: three queries per message). Changes made by this process
 * are written through with `store` and announced; another process's announcement drops the
 * stale copy (`changedElsewhere`), and a background refresh catches any announcement missed.
 * A message never waits on the database for a refresh.
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

  /** Writes through after this process changed (or re-read) a scope's settings, and announces it. */
  store(settings: ScopeSettings): void {
    const held = this.entries.get(settings.scopeId)?.settings.version;
    this.keep(settings);
    // A re-read of the version already held is no news.
    if (held === undefined || settings.version > held) {
      this.options.announce?.({ scopeId: settings.scopeId, version: settings.version });
    }
  }

  /**
   * Another process wrote version `version` of a scope's settings: an older copy goes. True
   * when one went.
   */
  changedElsewhere(change: { scopeId: string; version: number }): boolean {
    const entry = this.entries.get(change.scopeId);
    if (entry === undefined || entry.settings.version >= change.version) return false;
    return this.entries.delete(change.scopeId);
  }

  /** Forgets every scope (announcements may have been missed): each is read again on use. */
  clear(): void {
    this.entries.clear();
  }

  private keep(settings: ScopeSettings): void {
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
        this.keep(settings);
        return this.entries.get(scopeId)?.settings ?? settings;
      })
      .finally(() => this.loading.delete(scopeId));
    this.loading.set(scopeId, loading);
    return loading;
  }
}
