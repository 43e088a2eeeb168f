import { optionalText } from './config-fields.ts';

/**
 * The settings that share one REST budget between processes (README "Scaling out"), read by
 * both the bot's configuration and the REST proxy's.
 */
export const DEFAULT_GLOBAL_RATE_LIMIT = 50;
const MAX_GLOBAL_RATE_LIMIT = 100_000;
export const MAX_PROCESS_COUNT = 1_000;

/** DISCORD_GLOBAL_RATE_LIMIT: Discord's global limit of the bot, 50 unless Discord raised it. */
export const globalRateLimitSetting = optionalText.refine(
  (value) =>
    value === undefined ||
    (/^\d{1,6}$/.test(value) && Number(value) >= 1 && Number(value) <= MAX_GLOBAL_RATE_LIMIT),
  `must be the bot's global limit in requests per second, 1 to ${MAX_GLOBAL_RATE_LIMIT} (Discord's default is ${DEFAULT_GLOBAL_RATE_LIMIT})`,
);

/** BOT_PROCESS_COUNT: how many processes share the token when no REST proxy does. */
export const processCountSetting = optionalText.refine(
  (value) =>
    value === undefined ||
    (/^\d{1,4}$/.test(value) && Number(value) >= 1 && Number(value) <= MAX_PROCESS_COUNT),
  `must be a whole number of bot processes from 1 to ${MAX_PROCESS_COUNT}`,
);

/**
 * A REST base as discord.js wants it (`…/api`, no trailing slash). A proxy given by its origin
 * alone (`http://proxy:8080`) gets `/api`, the path nirn-proxy, twilight-http-proxy and
 * @discordjs/proxy all serve.
 */
export function apiBase(url: string): string {
  const trimmed = url.replace(/\/+$/, '');
  return new URL(trimmed).pathname === '/' ? `${trimmed}/api` : trimmed;
}
