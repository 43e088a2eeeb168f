/**
 * The composition root: the only place that reads the configuration, builds the logger,
 * database, providers, tools and the Discord client, wires them together and shuts them down.
 *
 * Only the configuration, the logger and small process helpers are imported up front: the
 * configuration is checked before the SDKs (discord.js, the vendors' clients, the database
 * drivers, MCP) load, which takes seconds. Each start-up phase imports what it wires and is
 * logged with its duration; the longer phases live in src/startup/, which take the config and
 * logger as parameters and read no environment themselves.
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { loadConfig, processEnvironment, secretValues, type Config } from './app/config/config.ts';
import { processShards, shardBindings } from './app/config/sharding-config.ts';
import { systemClock } from './core/clock.ts';
import { ConfigError } from './core/errors.ts';
import { LogOutput } from './app/logging/log-output.ts';
import { prettyLogs } from './app/logging/log-privacy.ts';
import { GatewayHealth } from './metrics/gateway-health.ts';
import { ProcessExit } from './app/lifecycle/process-exit.ts';
import { installProcessFaultHandlers } from './app/lifecycle/process-faults.ts';
import { providerKeyWarning } from './app/config/provider-key-warning.ts';
import type { ModelCatalogOverrides } from './providers/model-catalog.ts';
import { loadModelCatalogOverrides } from './providers/model-catalog-file.ts';
import { describeStartupFailure } from './app/lifecycle/startup-failure.ts';
import { StartupPhases } from './app/lifecycle/startup-phases.ts';
import { resealInBackground, scheduleMaintenance } from './app/lifecycle/background-work.ts';
import type { CleanupSteps } from './app/lifecycle/cleanup-steps.ts';
import { migrationsPhase, openDatabasePhase } from './app/lifecycle/database-phase.ts';
import { createDiscordPhase } from './app/lifecycle/discord-phase.ts';
import { createProviders } from './app/lifecycle/providers-phase.ts';
import { installShutdown } from './app/lifecycle/shutdown-signals.ts';
import { loadMcpConfig, mcpSecretValues, type McpServerConfig } from './tools/mcp/mcp-config.ts';

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
  const { createLogger } = await import('./app/logging/logger.ts');
  const logger = createLogger({
    level: config.logLevel,
    secrets: [...secretValues(config), ...mcpSecretValues(mcpServers)],
    pretty: prettyLogs(config.logFormat, process.stdout.isTTY === true),
    destination: output,
    bindings: shardBindings(config.sharding),
  });
  const instanceId = randomUUID();
  const cleanup: CleanupSteps = [];
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
    const { runShardManager } = await import('./app/lifecycle/shard-manager.ts');
    const manager = await runShardManager({
      config,
      logger,
      exit,
      entrypoint: fileURLToPath(import.meta.url),
      execArgv: process.execArgv,
    });
    if (manager !== undefined)
      installShutdown({ logger, shutdown: () => manager.stop(), followParent: false });
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
    const { database, secretBox, pingDatabase } = await phases.run('database', () =>
      openDatabasePhase({ config, logger, metrics, cleanup }),
    );
    const controlBus = await phases.run('migrations', () =>
      migrationsPhase({ database, instanceId, logger, cleanup }),
    );

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
    const providers = await phases.run('providers', () =>
      createProviders({ config, catalogOverrides, logger }),
    );
    const discord = await phases.run('discord-client', () =>
      createDiscordPhase({ config, logger, shards, gatewayHealth, exit, db: database.db }),
    );
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
      delivery: discord.delivery,
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
    scheduleMaintenance({
      database,
      logger,
      cleanup,
      afterEach: () => bot.recoverUnanswered(),
    });
    cleanup.push(() => client.destroy());
    cleanup.push(() => Promise.resolve(discord.monitor.close()));
    cleanup.push(() => bot.shutdown());
    installShutdown({ logger, shutdown: closeAll, followParent: shards !== undefined });
    await phases.run('discord-login', () => client.login(config.discordToken));
  } catch (error) {
    const failure = describeStartupFailure(error, config);
    if (!failure.showStack) logger.debug({ err: error }, 'start-up failure details');
    exit.fail(failure.message, failure.showStack ? { err: error } : {});
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
