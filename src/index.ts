/**
 * The composition root: the only place that reads the configuration, builds the logger,
 * database, providers, tools and the Discord client, wires them together and shuts them down.
 */
import { randomUUID } from 'node:crypto';
import { DiscordBot } from './bot/discord-bot.ts';
import { GlobalRequestPacer } from './bot/global-request-pacer.ts';
import { createDiscordClient } from './bot/discord-client.ts';
import { DiscordToolActions } from './bot/discord-tool-actions.ts';
import { loadConfig, processEnvironment, secretValues, type Config } from './config.ts';
import { systemClock } from './core/clock.ts';
import { BotError, ConfigError } from './core/errors.ts';
import type { Logger } from './core/logger.ts';
import { resealApiKeys } from './db/api-key-reseal.ts';
import { pruneClaims } from './db/claim-repository.ts';
import { openDatabase, pingDatabase, type DatabaseHandle } from './db/database.ts';
import { failAbandonedTurns } from './db/turn-recovery.ts';
import { prettyLogs } from './log-privacy.ts';
import { createLogger } from './logger.ts';
import { PrometheusMetrics } from './metrics/prometheus-metrics.ts';
import { startMetricsServer } from './metrics/metrics-server.ts';
import { ModelCatalog, type ModelCatalogOverrides } from './providers/model-catalog.ts';
import { loadModelCatalogOverrides } from './providers/model-catalog-file.ts';
import { ProviderFactory } from './providers/provider-factory.ts';
import { resolveEncryptionKey } from './security/encryption-key.ts';
import { SecretBox } from './security/secret-box.ts';
import { createTools } from './tools/create-tools.ts';
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
  const { config, mcpServers, catalogOverrides } = readSetupOrExit();
  const logger = createLogger({
    level: config.logLevel,
    secrets: [...secretValues(config), ...mcpSecretValues(mcpServers)],
    pretty: prettyLogs(config.logFormat, process.stdout.isTTY === true),
  });
  installLastResortHandlers(logger);
  const instanceId = randomUUID();
  const metrics = new PrometheusMetrics();
  const cleanup: Array<() => Promise<unknown>> = [];
  const closeAll = async (): Promise<void> => {
    for (const close of cleanup.reverse()) await close().catch(() => undefined);
    cleanup.length = 0;
  };
  try {
    const secretBox = new SecretBox(
      resolveEncryptionKey({ configured: config.encryptionKey, dataDir: config.dataDir, logger }),
      config.previousEncryptionKeys,
    );
    const database = await openConfiguredDatabase(config, logger, metrics);
    cleanup.push(() => database.close());
    await database.migrate();
    const releaseLiveness = await database.liveness.hold(instanceId);
    cleanup.push(releaseLiveness);
    const abandoned = await failAbandonedTurns(database.db, database.liveness);
    if (abandoned > 0)
      logger.warn(
        { turns: abandoned },
        'marked turns left streaming by a stopped process as failed',
      );

    resealInBackground({ database, secretBox, config, logger, cleanup });
    const client = createDiscordClient({
      apiUrl: config.discordApiUrl,
      pacer: new GlobalRequestPacer({ clock: systemClock }),
    });
    if (config.metricsPort !== undefined) {
      const server = await startMetricsServer({
        port: config.metricsPort,
        host: config.metricsHost,
        logger,
        metrics,
        health: async () => client.isReady() && (await pingDatabase(database.db).then(() => true)),
      });
      cleanup.push(() => server.close());
    }
    const providers = new ProviderFactory({
      defaults: {
        defaultProvider: config.defaultProvider,
        defaultModel: config.defaultModel,
        providerKeys: config.providerKeys,
        providerBaseUrls: config.providerBaseUrls,
      },
      catalog: new ModelCatalog(catalogOverrides),
      logger,
    });
    const discordActions = new DiscordToolActions(client);
    const tools = await createTools({
      db: database.db,
      clock: systemClock,
      logger,
      mcpServers,
      metrics,
      discordActions,
      reminderDelivery: discordActions,
    });
    cleanup.push(() => tools.close());
    metrics.observeMcpServers(() =>
      tools.mcp.states().map((state) => ({ name: state.name, up: state.status === 'ready' })),
    );
    const bot = new DiscordBot({
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
      shutdownGraceMs: config.shutdownGraceMs,
      isAlive: (other) => database.liveness.isAlive(other),
    });
    bot.attach();
    const background = new AbortController();
    cleanup.push(() => Promise.resolve(background.abort()));
    client.once('clientReady', (ready) => {
      logger.info(
        { user: ready.user.tag, guilds: ready.guilds.cache.size, instanceId },
        'connected to Discord',
      );
      void tools.reminders.run(background.signal);
    });
    const maintenance = setInterval(() => {
      void runMaintenance(database, logger).then(() => bot.recoverUnanswered());
    }, MAINTENANCE_INTERVAL_MS);
    maintenance.unref();
    cleanup.push(() => Promise.resolve(clearInterval(maintenance)));
    cleanup.push(() => client.destroy());
    cleanup.push(() => bot.shutdown());
    installShutdown(logger, closeAll);
    await client.login(config.discordToken);
  } catch (error) {
    logger.fatal({ err: error }, describeStartupFailure(error, config));
    await closeAll();
    process.exitCode = 1;
  }
}

/** After a key rotation: stored API keys move to the current key while the bot runs. */
function resealInBackground(options: {
  database: DatabaseHandle;
  secretBox: SecretBox;
  config: Config;
  logger: Logger;
  cleanup: Array<() => Promise<unknown>>;
}): void {
  const { logger } = options;
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
    const failed = await failAbandonedTurns(database.db, database.liveness);
    if (failed > 0) logger.warn({ turns: failed }, 'failed turns of a process that stopped');
    await pruneClaims(database.db, new Date(Date.now() - CLAIM_RETENTION_MS));
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

async function openConfiguredDatabase(
  config: Config,
  logger: Logger,
  metrics: PrometheusMetrics,
): Promise<DatabaseHandle> {
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

function describeStartupFailure(error: unknown, config: Config): string {
  if (error instanceof BotError) return `start-up failed: ${error.message}`;
  const code = (error as { code?: unknown } | undefined)?.code;
  if (code === 'TokenInvalid' || (error as { status?: unknown } | undefined)?.status === 401) {
    return 'start-up failed: Discord rejected DISCORD_TOKEN (reset it in the developer portal)';
  }
  if (
    typeof code === 'string' &&
    /^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNRESET)$/.test(code)
  ) {
    return `start-up failed: could not reach Discord at ${config.discordApiUrl} (${code})`;
  }
  return 'start-up failed';
}

function installShutdown(logger: Logger, shutdown: () => Promise<void>): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
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
}

/**
 * Last-resort nets: every boundary of the bot catches its own failures, so reaching these is a
 * bug to log (scrubbed of secrets), not a reason to drop every live conversation.
 */
function installLastResortHandlers(logger: Logger): void {
  process.on('unhandledRejection', (reason) =>
    logger.error({ err: reason }, 'unhandled rejection'),
  );
  process.on('uncaughtException', (error) => logger.error({ err: error }, 'uncaught exception'));
}

await main();
