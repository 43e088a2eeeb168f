/**
 * `npm run rest-proxy`: the shared REST proxy every bot process sends Discord requests through
 * (DISCORD_REST_PROXY), so the bot's one global budget and its route buckets are kept in one
 * place (README "Scaling out"). REST_PROXY_PORT (8080), REST_PROXY_HOST (127.0.0.1) and
 * DISCORD_API_URL (the upstream, https://discord.com/api) configure it; it needs no token.
 */
import { startRestProxy } from '../src/bot/rest/rest-proxy-server.ts';
import { processEnvironment } from '../src/app/config/config.ts';
import { systemClock } from '../src/core/clock.ts';
import { ConfigError } from '../src/core/errors.ts';
import { prettyLogs } from '../src/app/logging/log-privacy.ts';
import { createLogger } from '../src/app/logging/logger.ts';
import { parseRestProxyConfig, type RestProxyConfig } from '../src/app/config/rest-proxy-config.ts';

/** Requests still queued when this passes after SIGTERM are dropped (their callers retry). */
const SHUTDOWN_DEADLINE_MS = 10_000;

let config: RestProxyConfig;
try {
  config = parseRestProxyConfig(processEnvironment());
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  for (const problem of error.problems) process.stderr.write(`Configuration error: ${problem}\n`);
  process.exit(1);
}
const logger = createLogger({
  level: config.logLevel,
  secrets: [],
  pretty: prettyLogs(config.logFormat, process.stdout.isTTY === true),
}).child({ component: 'rest-proxy' });

const proxy = await startRestProxy({
  upstreamUrl: config.upstreamUrl,
  host: config.host,
  port: config.port,
  globalRateLimit: config.globalRateLimit,
  logger,
  clock: systemClock,
});

const stop = (signal: string): void => {
  logger.info({ signal }, 'REST proxy stopping: finishing requests in flight');
  const deadline = setTimeout(() => {
    logger.warn({ deadlineMs: SHUTDOWN_DEADLINE_MS }, 'REST proxy stopped with requests queued');
    process.exit(0);
  }, SHUTDOWN_DEADLINE_MS);
  deadline.unref();
  void proxy.close().then(() => {
    logger.info('REST proxy stopped');
    process.exit(0);
  });
};
process.once('SIGTERM', () => stop('SIGTERM'));
process.once('SIGINT', () => stop('SIGINT'));
