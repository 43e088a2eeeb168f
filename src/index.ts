/**
 * The composition root: the only place that reads the configuration, builds the logger,
 * database, providers, tools and the Discord client, wires them together and shuts them down.
 */
import { createDiscordClient } from './bot/discord-client.ts';
import { loadConfig, secretValues, type Config } from './config.ts';
import { ConfigError, BotError } from './core/errors.ts';
import type { Logger } from './core/logger.ts';
import { openDatabase, type DatabaseHandle } from './db/database.ts';
import { failStreamingTurns } from './db/turn-repository.ts';
import { createLogger } from './logger.ts';
import { startMetricsServer, type MetricsServer } from './metrics/metrics-server.ts';
import { resolveEncryptionKey } from './security/encryption-key.ts';

async function main(): Promise<void> {
  const config = readConfigOrExit();
  const logger = createLogger({
    level: config.logLevel,
    secrets: secretValues(config),
    pretty: process.stdout.isTTY === true,
  });
  installLastResortHandlers(logger);
  const resources: { database?: DatabaseHandle; metrics?: MetricsServer } = {};
  try {
    // Resolved now so a missing or broken key fails start-up, not the first /config apikey.
    resolveEncryptionKey({ configured: config.encryptionKey, dataDir: config.dataDir, logger });
    resources.database = await openConfiguredDatabase(config, logger);
    await resources.database.migrate();
    const abandoned = await failStreamingTurns(resources.database.db, new Date());
    if (abandoned > 0)
      logger.warn({ turns: abandoned }, 'marked turns left streaming by a previous run as failed');
    if (config.metricsPort !== undefined) {
      resources.metrics = await startMetricsServer({ port: config.metricsPort, logger });
    }
    const client = createDiscordClient({ apiUrl: config.discordApiUrl });
    client.once('clientReady', (ready) =>
      logger.info(
        { user: ready.user.tag, guilds: ready.guilds.cache.size },
        'connected to Discord',
      ),
    );
    installShutdown(logger, async () => {
      await client.destroy();
      await resources.metrics?.close();
      await resources.database?.close();
    });
    await client.login(config.discordToken);
  } catch (error) {
    logger.fatal({ err: error }, describeStartupFailure(error, config));
    await resources.metrics?.close().catch(() => undefined);
    await resources.database?.close().catch(() => undefined);
    process.exitCode = 1;
  }
}

function readConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    for (const problem of error.problems) process.stderr.write(`Configuration error: ${problem}\n`);
    process.exit(1);
  }
}

async function openConfiguredDatabase(config: Config, logger: Logger): Promise<DatabaseHandle> {
  if (config.databaseUrl !== undefined) {
    return openDatabase({ kind: 'postgres', url: config.databaseUrl, logger });
  }
  logger.info(
    { dataDir: config.dataDir },
    'using the embedded database (set DATABASE_URL for PostgreSQL)',
  );
  return openDatabase({ kind: 'pglite', dataDir: `${config.dataDir}/pglite`, logger });
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
