import { z } from 'zod';
import { DEFAULT_DISCORD_API_URL, type Environment } from './config.ts';
import {
  describeIssues,
  hostSetting,
  logFormatSetting,
  logLevelSetting,
  optionalUrl,
  portSetting,
  type LogFormat,
  type LogLevel,
} from './config-fields.ts';
import { ConfigError } from '../../core/errors.ts';
import { DEFAULT_GLOBAL_RATE_LIMIT, globalRateLimitSetting } from './rest-budget-settings.ts';

/** `npm run rest-proxy`'s configuration (README "Scaling out"): where it listens, what it fronts. */
export interface RestProxyConfig {
  /** Discord's REST base the proxy forwards to (DISCORD_API_URL, as the bot names it). */
  upstreamUrl: string;
  host: string;
  /** 0 picks a free port (logged). */
  port: number;
  /** Discord's global limit of the bot (DISCORD_GLOBAL_RATE_LIMIT); the proxy uses 80% of it. */
  globalRateLimit: number;
  logLevel: LogLevel;
  logFormat: LogFormat | undefined;
}

export const DEFAULT_REST_PROXY_PORT = 8080;
export const DEFAULT_REST_PROXY_HOST = '127.0.0.1';

const restProxySchema = z.object({
  DISCORD_API_URL: optionalUrl(['http:', 'https:']),
  REST_PROXY_PORT: portSetting,
  REST_PROXY_HOST: hostSetting,
  DISCORD_GLOBAL_RATE_LIMIT: globalRateLimitSetting,
  LOG_LEVEL: logLevelSetting,
  LOG_FORMAT: logFormatSetting,
});

/**
 * Parses the proxy's environment. It needs no token: it forwards each caller's Authorization
 * header, so one proxy serves the bot whichever process calls.
 */
export function parseRestProxyConfig(environment: Environment): RestProxyConfig {
  const result = restProxySchema.safeParse(environment);
  if (!result.success) {
    throw new ConfigError(describeIssues(result.error.issues, environment));
  }
  const values = result.data;
  return {
    upstreamUrl: (values.DISCORD_API_URL ?? DEFAULT_DISCORD_API_URL).replace(/\/+$/, ''),
    host: values.REST_PROXY_HOST ?? DEFAULT_REST_PROXY_HOST,
    port:
      values.REST_PROXY_PORT === undefined
        ? DEFAULT_REST_PROXY_PORT
        : Number(values.REST_PROXY_PORT),
    globalRateLimit:
      values.DISCORD_GLOBAL_RATE_LIMIT === undefined
        ? DEFAULT_GLOBAL_RATE_LIMIT
        : Number(values.DISCORD_GLOBAL_RATE_LIMIT),
    logLevel: (values.LOG_LEVEL as LogLevel | undefined) ?? 'info',
    logFormat: values.LOG_FORMAT as LogFormat | undefined,
  };
}
