/**
 * The composition root: the only place that reads the configuration, builds the logger,
 * database, providers, tools and the Discord client, wires them together and shuts them down.
 *
 * Only the configuration, the logger and small process helpers are imported up front: the
 * configuration is checked before the SDKs (discord.js, the vendors' clients, the database
 * drivers, MCP) load, which takes seconds. Each start-up phase imports what it wires and is
 * logged with its duration.
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { loadConfig, processEnvironment, secretValues, type Config } from './config.ts';
import { processShards, shardBindings } from './sharding-config.ts';
import { systemClock } from './core/clock.ts';
import { ConfigError } from './core/errors.ts';
import type { Logger } from './core/logger.ts';
import type { BotMetrics } from './core/metrics.ts';
import type { SecretBox } from './security/secret-box.ts';
import type { DatabaseHandle, DatabaseOptions } from './db/database.ts';
import { LogOutput } from './log-output.ts';
import { prettyLogs } from './log-privacy.ts';
import { GatewayHealth } from './metrics/gateway-health.ts';
import { ProcessExit } from './process-exit.ts';
import { installProcessFaultHandlers } from './process-faults.ts';
import { providerKeyWarning } from './provider-key-warning.ts';
import type { ModelCatalogOverrides } from './providers/model-catalog.ts';
import { loadModelCatalogOverrides } from './providers/model-catalog-file.ts';
import { describeStartupFailure } from './startup-failure.ts';
import { StartupPhases } from './startup-phases.ts';
import { loadMcpConfig, mcpSecretValues, type McpServerConfig } from './tools/mcp/mcp-config.ts';

/** Housekeeping: fail turns of processes that died, forget old message claims. */
const MAINTENANCE_INTERVAL_MS = 60_000;
const CLAIM_RETENTION_MS = 24 * 60 * 60_000;

interface Setup {
  config: Config;
  mcpServers: McpServerConfig[];
  catalogOverrides: ModelCatalogOverrides;
}

async function main(): Promise<void> {
  // The process's start, so the config phase includes loading the modules it needs.
  const startedAt = Math.round(performance.timeOrigin);
  const { config, mcpServers, catalogOverrides } = readSetupOrExit();
  const output = new LogOutput(process.stdout);
  const { createLogger } = await import('./logger.ts');
  const logger = createLogger({
    level: config.logLevel,
    secrets: [...secretValues(config), ...mcpSecretValues(mcpServers)],
    pretty: prettyLogs(config.logFormat, process.stdout.isTTY === true),
    destination: output,
    bindings: shardBindings(config.sharding),
  });
  const instanceId = randomUUID();
  const cleanup: Array<() => Promise<unknown>> = [];
  const closeAll = async (): Promise<void> => {
    for (const close of cleanup.reverse()) await close().catch(() => undefined);
    cleanup.length = 0;
  };
  const exit = new ProcessExit({
    logger,
    clock: systemClock,
    cleanup: closeAll,
    exit: (code) => process.exit(code),
  });
  installProcessFaultHandlers({
    source: process,
    logger,
    output,
    exit,
    tellOperator: (line) => writeQuietly(process.stderr, line),
  });
  if (config.sharding.role === 'manager') {
    const { runShardManager } = await import('./shard-manager.ts');
    const manager = await runShardManager({
      config,
      logger,
      exit,
      entrypoint: fileURLToPath(import.meta.url),
      execArgv: process.execArgv,
    });
    if (manager !== undefined)
      installShutdown(logger, () => manager.stop(), { followParent: false });
    return;
  }
  const phases = new StartupPhases({ logger, clock: systemClock, startedAt });
  phases.done('config', startedAt);
  const keyWarning = providerKeyWarning(config);
  if (keyWarning !== undefined) logger.warn(keyWarning);
  const shards = processShards(config.sharding);
  const gatewayHealth = new GatewayHealth({ clock: systemClock, shardIds: shards?.shardIds });
  try {
    // Before the database, so its queries are timed from the first one.
    const { PrometheusMetrics } = await import('./metrics/prometheus-metrics.ts');
    const metrics = new PrometheusMetrics({ constantLabels: shardBindings(config.sharding) });
    const { database, secretBox, pingDatabase } = await phases.run('database', async () => {
      const { openDatabase, pingDatabase } = await import('./db/database.ts');
      const { resolveEncryptionKey } = await import('./security/encryption-key.ts');
      const { SecretBox } = await import('./security/secret-box.ts');
      const secretBox = new SecretBox(
        resolveEncryptionKey({ configured: config.encryptionKey, dataDir: config.dataDir, logger }),
        config.previousEncryptionKeys,
      );
      const database = await openConfiguredDatabase({ config, logger, metrics, openDatabase });
      cleanup.push(() => database.close());
      await pingDatabase(database.db);
      return { database, secretBox, pingDatabase };
    });
    const controlBus = await phases.run('migrations', async () => {
      const { failAbandonedTurns } = await import('./db/turn-recovery.ts');
      await database.migrate();
      const releaseLiveness = await database.liveness.hold(instanceId);
      cleanup.push(releaseLiveness);
      const abandoned = await failAbandonedTurns(database.db, database.liveness);
      if (abandoned > 0)
        logger.warn(
          { turns: abandoned },
          'marked turns left streaming by a stopped process as failed',
        );
      // Listening before login: a stop for a reply this process streams is never missed.
      return database.controlBus();
    });

    await resealInBackground({ database, secretBox, config, logger, cleanup });
    if (config.metricsPort !== undefined) {
      const { startMetricsServer } = await import('./metrics/metrics-server.ts');
      const server = await startMetricsServer({
        port: config.metricsPort,
        host: config.metricsHost,
        logger,
        metrics,
        health: async () =>
          gatewayHealth.healthy() && (await pingDatabase(database.db).then(() => true)),
        details: () => ({ shards: gatewayHealth.report(), pid: process.pid, instanceId }),
      });
      cleanup.push(() => server.close());
    }
    const providers = await phases.run('providers', async () => {
      const { ModelCatalog } = await import('./providers/model-catalog.ts');
      const { ProviderFactory } = await import('./providers/provider-factory.ts');
      return new ProviderFactory({
        defaults: {
          defaultProvider: config.defaultProvider,
          defaultModel: config.defaultModel,
          providerKeys: config.providerKeys,
          providerBaseUrls: config.providerBaseUrls,
        },
        catalog: new ModelCatalog(catalogOverrides),
        logger,
      });
    });
    const discord = await phases.run('discord-client', async () => {
      const { createDiscordClient } = await import('./bot/discord-client.ts');
      const { GatewayMonitor } = await import('./bot/gateway-monitor.ts');
      const { GlobalRequestPacer, processRequestsPerSecond } =
        await import('./bot/global-request-pacer.ts');
      const { DiscordToolActions } = await import('./bot/discord-tool-actions.ts');
      const { DiscordBot } = await import('./bot/discord-bot.ts');
      const { inviteLink } = await import('./bot/invite-link.ts');
      const { SharedIdentifyThrottler } =
        await import('./bot/sharding/shared-identify-throttler.ts');
      const { takeIdentifySlot } = await import('./db/identify-slot-repository.ts');
      const monitor = new GatewayMonitor({
        logger,
        health: gatewayHealth,
        onFatalClose: (advice, code) => exit.fail(advice, { code }),
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
        identifyThrottler:
          shards === undefined
            ? undefined
            : (maxConcurrency: number) =>
                new SharedIdentifyThrottler({
                  slots: {
                    take: (key, windowMs) => takeIdentifySlot(database.db, { key, windowMs }),
                  },
                  clock: systemClock,
                  maxConcurrency,
                }),
      });
      return { client, monitor, DiscordBot, inviteLink, actions: new DiscordToolActions(client) };
    });
    const { client } = discord;
    const tools = await phases.run('tools', async () => {
      const { createTools } = await import('./tools/create-tools.ts');
      return createTools({
        db: database.db,
        clock: systemClock,
        logger,
        mcpServers,
        metrics,
        discordActions: discord.actions,
        reminderDelivery: discord.actions,
        reminderShards: shards,
      });
    });
    cleanup.push(() => tools.close());
    metrics.observeMcpServers(() =>
      tools.mcp.states().map((state) => ({ name: state.name, up: state.status === 'ready' })),
    );
    const bot = new discord.DiscordBot({
      client,
      db: database.db,
      secretBox,
      providers,
      tools: tools.registry,
      toolCatalog: tools.catalog,
      commandGuildId: config.devGuildId,
      clock: systemClock,
      random: Math.random,
      logger,
      metrics,
      instanceId,
      ownerIds: config.ownerIds,
      bus: controlBus,
      shutdownGraceMs: config.shutdownGraceMs,
      isAlive: (other) => database.liveness.isAlive(other),
      shards,
      canJudgePeers: () => database.liveness.canJudgePeers(),
    });
    bot.attach();
    const background = new AbortController();
    cleanup.push(() => Promise.resolve(background.abort()));
    client.once('clientReady', (ready) => {
      logger.info(
        {
          user: ready.user.tag,
          guilds: ready.guilds.cache.size,
          instanceId,
          startupMs: phases.elapsedMs(),
        },
        'connected to Discord',
      );
      const url = discord.inviteLink(ready.application.id);
      if (ready.guilds.cache.size === 0) {
        logger.warn({ url }, 'the bot is in no server yet: open this link to invite it');
      } else {
        logger.info({ url }, 'invite link (scopes bot + applications.commands)');
      }
      void tools.reminders.run(background.signal);
    });
    const maintenance = setInterval(() => {
      void runMaintenance(database, logger).then(() => bot.recoverUnanswered());
    }, MAINTENANCE_INTERVAL_MS);
    maintenance.unref();
    cleanup.push(() => Promise.resolve(clearInterval(maintenance)));
    cleanup.push(() => client.destroy());
    cleanup.push(() => Promise.resolve(discord.monitor.close()));
    cleanup.push(() => bot.shutdown());
    installShutdown(logger, closeAll, { followParent: shards !== undefined });
    await phases.run('discord-login', () => client.login(config.discordToken));
  } catch (error) {
    const failure = describeStartupFailure(error, config);
    if (!failure.showStack) logger.debug({ err: error }, 'start-up failure details');
    exit.fail(failure.message, failure.showStack ? { err: error } : {});
  }
}

/** After a key rotation: stored API keys move to the current key while the bot runs. */
async function resealInBackground(options: {
  database: DatabaseHandle;
  secretBox: SecretBox;
  config: Config;
  logger: Logger;
  cleanup: Array<() => Promise<unknown>>;
}): Promise<void> {
  const { logger } = options;
  const { resealApiKeys } = await import('./db/api-key-reseal.ts');
  const stop = new AbortController();
  options.cleanup.push(() => Promise.resolve(stop.abort()));
  resealApiKeys({
    db: options.database.db,
    box: options.secretBox,
    defaultProvider: options.config.defaultProvider,
    logger,
    signal: stop.signal,
  }).catch((error: unknown) => {
    if (!stop.signal.aborted)
      logger.warn({ err: error }, 'resealing stored API keys failed; it runs again at next start');
  });
}

async function runMaintenance(database: DatabaseHandle, logger: Logger): Promise<void> {
  try {
    const { failAbandonedTurns } = await import('./db/turn-recovery.ts');
    const { pruneClaims } = await import('./db/claim-repository.ts');
    const { pruneMemberTurns } = await import('./db/member-turn-repository.ts');
    const failed = await failAbandonedTurns(database.db, database.liveness);
    if (failed > 0) logger.warn({ turns: failed }, 'failed turns of a process that stopped');
    await pruneClaims(database.db, new Date(Date.now() - CLAIM_RETENTION_MS));
    // Far outside the one-minute rate window, with room for clocks that disagree.
    await pruneMemberTurns(database.db, new Date(Date.now() - CLAIM_RETENTION_MS));
  } catch (error) {
    logger.warn({ err: error }, 'maintenance failed');
  }
}

/** Configuration and the operator's files, or one line per problem and exit 1. */
function readSetupOrExit(): Setup {
  try {
    const config = loadConfig();
    return {
      config,
      mcpServers:
        config.mcpConfigPath === undefined
          ? []
          : loadMcpConfig(config.mcpConfigPath, processEnvironment()),
      catalogOverrides:
        config.modelCatalogPath === undefined
          ? {}
          : loadModelCatalogOverrides(config.modelCatalogPath),
    };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    for (const problem of error.problems) process.stderr.write(`Configuration error: ${problem}\n`);
    process.exit(1);
  }
}

async function openConfiguredDatabase(options: {
  config: Config;
  logger: Logger;
  metrics: BotMetrics;
  openDatabase: (options: DatabaseOptions) => Promise<DatabaseHandle>;
}): Promise<DatabaseHandle> {
  const { config, logger, metrics, openDatabase } = options;
  const onQuery = metrics.databaseQuery.bind(metrics);
  if (config.databaseUrl !== undefined) {
    return openDatabase({ kind: 'postgres', url: config.databaseUrl, logger, onQuery });
  }
  logger.info(
    { dataDir: config.dataDir },
    'using the embedded database (set DATABASE_URL for PostgreSQL)',
  );
  return openDatabase({ kind: 'pglite', dataDir: `${config.dataDir}/pglite`, logger, onQuery });
}

/**
 * A shard child also stops when its manager's IPC channel closes (the manager was killed, even
 * with SIGKILL): a shard must never outlive its manager, or a restarted manager would run it twice.
 */
function installShutdown(
  logger: Logger,
  shutdown: () => Promise<void>,
  options: { followParent: boolean },
): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals | 'parent-gone'): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    shutdown().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  if (options.followParent) {
    // discord.js reports shard events over IPC; once the manager is gone those sends fail.
    process.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ERR_IPC_CHANNEL_CLOSED') throw error;
    });
    process.once('disconnect', () => stop('parent-gone'));
    if (process.connected === false) stop('parent-gone');
  }
}

/** Writes to a stream that may itself be closed, without raising an error event loop. */
function writeQuietly(stream: NodeJS.WriteStream, text: string): void {
  try {
    stream.on('error', () => undefined);
    stream.write(text);
  } catch {
    // Nowhere left to tell anyone.
  }
}

await main();
