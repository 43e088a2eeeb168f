import { optionalText } from './config-fields.ts';
import { DEFAULT_CACHE_LIMITS, type CacheLimits } from '../../core/cache-limits.ts';

/**
 * The memory bounds (README "Memory bounds"): one whole-number setting per cache, each with the
 * range it may take. Minimums keep the bot working (a recent window of at least one message, the
 * members of the messages being answered); maximums catch a typo that would undo the bound.
 */
const CACHE_SETTINGS = {
  CACHE_CHANNELS: { key: 'channels', min: 1, max: 10_000_000 },
  CACHE_HISTORY_PER_CHANNEL: { key: 'historyPerChannel', min: 1, max: 100 },
  CACHE_SCOPES: { key: 'scopes', min: 1, max: 10_000_000 },
  DISCORD_CACHE_MESSAGES: { key: 'discordMessagesPerChannel', min: 0, max: 1_000 },
  DISCORD_CACHE_MEMBERS: { key: 'discordMembersPerGuild', min: 1, max: 10_000_000 },
  DISCORD_CACHE_USERS: { key: 'discordUsers', min: 1, max: 10_000_000 },
} as const satisfies Record<string, { key: keyof CacheLimits; min: number; max: number }>;

type CacheSettingName = keyof typeof CACHE_SETTINGS;

export const cacheLimitsEnvironmentSchema = Object.fromEntries(
  Object.entries(CACHE_SETTINGS).map(([name, { min, max }]) => [
    name,
    optionalText.refine(
      (value) =>
        value === undefined ||
        (/^\d{1,8}$/.test(value) && Number(value) >= min && Number(value) <= max),
      `must be a whole number from ${min} to ${max}`,
    ),
  ]),
) as Record<CacheSettingName, typeof optionalText>;

/** The limits set in the environment, the defaults for the rest. */
export function parseCacheLimits(
  values: Partial<Record<CacheSettingName, string | undefined>>,
): CacheLimits {
  const limits: CacheLimits = { ...DEFAULT_CACHE_LIMITS };
  for (const [name, { key }] of Object.entries(CACHE_SETTINGS)) {
    const value = values[name as CacheSettingName];
    if (value !== undefined) limits[key] = Number(value);
  }
  return limits;
}
