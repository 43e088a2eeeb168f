import type { Config } from '../config/config.ts';
import { systemClock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import type { Database } from '../../db/database.ts';
import type { GatewayHealth } from '../../metrics/gateway-health.ts';
import type { ProcessExit } from './process-exit.ts';
import type { ProcessShards } from '../../core/process-shards.ts';

/**
 * The `discord-client` phase: the discord.js client with its REST pacing (this process's share
 * of the global limit, or none behind the shared proxy), the gateway monitor (a fatal close
 * code ends the process) and, for a shard child, IDENTIFY slots shared through the database.
 * discord.js loads here, not before (a configuration error is reported without it).
 */
export async function createDiscordPhase(options: {
  config: Config;
  logger: Logger;
  shards: ProcessShards | undefined;
  gatewayHealth: GatewayHealth;
  exit: ProcessExit;
  db: Database;
}) {
  const { config, logger, shards } = options;
  const { createDiscordClient } = await import('../../bot/client/discord-client.ts');
  const { GatewayMonitor } = await import('../../bot/client/gateway-monitor.ts');
  const { GlobalRequestPacer, processRequestsPerSecond } =
    await import('../../bot/rest/global-request-pacer.ts');
  const { DeliveryPort } = await import('../../bot/delivery/delivery-port.ts');
  const { WriteBudgets } = await import('../../bot/delivery/write-budgets.ts');
  const { SharedIdentifyThrottler } =
    await import('../../bot/sharding/shared-identify-throttler.ts');
  const { takeIdentifySlot } = await import('../../db/identify-slot-repository.ts');
  const monitor = new GatewayMonitor({
    logger,
    health: options.gatewayHealth,
    onFatalClose: (advice, code) => options.exit.fail(advice, { code }),
  });
  // Behind the proxy the proxy paces for every process; alone, each takes its share.
  const requestsPerSecond =
    config.restProxyUrl === undefined
      ? processRequestsPerSecond(config.processCount, config.globalRateLimit)
      : undefined;
  logger.info(
    { restProxy: config.restProxyUrl ?? null, requestsPerSecond: requestsPerSecond ?? null },
    config.restProxyUrl === undefined
      ? 'REST paced by this process'
      : 'REST through the shared proxy',
  );
  const client = createDiscordClient({
    apiUrl: config.discordApiUrl,
    restProxyUrl: config.restProxyUrl,
    globalRequestsPerSecond: config.globalRateLimit,
    pacer:
      requestsPerSecond === undefined
        ? undefined
        : new GlobalRequestPacer({ clock: systemClock, limit: requestsPerSecond }),
    observeGateway: (manager) => monitor.observe(manager),
    shards,
    caches: config.caches,
    voiceChannels: config.voiceChannels !== undefined,
    identifyThrottler:
      shards === undefined
        ? undefined
        : (maxConcurrency: number) =>
            new SharedIdentifyThrottler({
              slots: {
                take: (key, windowMs) => takeIdentifySlot(options.db, { key, windowMs }),
              },
              clock: systemClock,
              maxConcurrency,
            }),
  });
  // One write path for the bot's replies and the tools' stickers and reminders alike.
  const budgets = new WriteBudgets(systemClock, config.caches.channels);
  return { client, monitor, delivery: new DeliveryPort({ clock: systemClock, logger, budgets }) };
}
