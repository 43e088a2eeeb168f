/**
 * The composition root: the one place that reads the configuration and builds the process —
 * logger, database, providers, Discord client, tools and the bot — wires them together and
 * registers how each is shut down (app/lifecycle/shutdown.ts says what SIGTERM does).
 *
 * Only the configuration, the logger and small process helpers are imported up front: the
 * configuration is checked before the SDKs (discord.js, the vendors' clients, the database
 * drivers, MCP) load, which takes seconds. Each start-up phase imports what it builds and is
 * logged with its duration (app/lifecycle/*-phase.ts).
 */
import { randomUUID } from 'node:crypto';
import { enableCompileCache } from 'node:module';
import { fileURLToPath } from 'node:url';
import { loadConfig, processEnvironment, secretValues, type Config } from './app/config/config.ts';
import { providerKeyWarning } from './app/config/provider-key-warning.ts';
import { processShards, shardBindings } from './app/config/sharding-config.ts';
import { unknownSettingWarnings } from './app/config/unknown-settings.ts';
import { resealInBackground, scheduleMaintenance } from './app/lifecycle/background-work.ts';
import { collectAtRest, v8Memory } from './app/lifecycle/rest-collection.ts';
import { migrationsPhase, openDatabasePhase } from './app/lifecycle/database-phase.ts';
import { installPackageModuleResolution } from './app/lifecycle/package-module-resolution.ts';
import { createDiscordPhase } from './app/lifecycle/discord-phase.ts';
import { ProcessExit } from './app/lifecycle/process-exit.ts';
import { installProcessFaultHandlers } from './app/lifecycle/process-faults.ts';
import { createProviders } from './app/lifecycle/providers-phase.ts';
import { installShutdown, ShutdownSteps } from './app/lifecycle/shutdown.ts';
import { describeStartupFailure } from './app/lifecycle/startup-failure.ts';
import { StartupPhases } from './app/lifecycle/startup-phases.ts';
import { LogOutput } from './app/logging/log-output.ts';
import { prettyLogs } from './app/logging/log-privacy.ts';
import { systemClock } from './core/clock.ts';
import { ConfigError } from './core/errors.ts';
import type { Logger } from './core/logger.ts';
import { noMetrics, type BotMetrics } from './core/metrics.ts';
import type { ProcessShards } from './core/process-shards.ts';
import type { SpeechService } from './core/speech.ts';
import type { DatabaseHandle } from './db/database.ts';
import { GatewayHealth } from './metrics/gateway-health.ts';
import type { PrometheusMetrics } from './metrics/prometheus-metrics.ts';
import type { ModelCatalog, ModelCatalogOverrides } from './providers/model-catalog.ts';
import { loadModelCatalogOverrides } from './providers/model-catalog-file.ts';
import { loadMcpConfig, mcpSecretValues, type McpServerConfig } from './tools/mcp/mcp-config.ts';

/** The operator's configuration and files, read and checked before anything starts. */
interface Setup {
  config: Config;
  mcpServers: McpServerConfig[];
  catalogOverrides: ModelCatalogOverrides;
  /** Keys of `.env` the bot does not know (logged once, by the first process only). */
  unknownSettings: string[];
}

/** The discord.js client and its write path (only src/bot imports discord.js). */
type DiscordConnection = Awaited<ReturnType<typeof createDiscordPhase>>;
type DiscordClient = DiscordConnection['client'];

/** What every step of a start shares. */
interface App {
  setup: Setup;
  config: Config;
  logger: Logger;
  exit: ProcessExit;
  shutdown: ShutdownSteps;
  instanceId: string;
}

async function main(): Promise<void> {
  // The process's start, so the config phase includes loading the modules it needs.
  const startedAt = Math.round(performance.timeOrigin);
  // Before the packages load: they are imported by the phases below. V8's compiled code of
  // each module is kept on disk (Node's compile cache, in the system's temporary directory)
  // for the next start: about 0.25 s of CPU less per start (measured on PostgreSQL).
  installPackageModuleResolution();
  enableCompileCache();
  const setup = readSetupOrExit();
  const app = await startApp(setup);
  if (setup.config.sharding.role === 'manager') {
    await runShardManager(app);
    return;
  }
  try {
    await runBot(app, startedAt);
  } catch (error) {
    const failure = describeStartupFailure(error, setup.config);
    if (!failure.showStack) app.logger.debug({ err: error }, 'start-up failure details');
    app.exit.fail(failure.message, failure.showStack ? { err: error } : {});
  }
}

/** The logger, the one way a failing process ends, and the handlers of process faults. */
async function startApp(setup: Setup): Promise<App> {
  const { config } = setup;
  const output = new LogOutput(process.stdout);
  const { createLogger } = await import('./app/logging/logger.ts');
  const logger = createLogger({
    level: config.logLevel,
    secrets: [...secretValues(config), ...mcpSecretValues(setup.mcpServers)],
    pretty: prettyLogs(config.logFormat, process.stdout.isTTY === true),
    destination: output,
    bindings: shardBindings(config.sharding),
  });
  const shutdown = new ShutdownSteps(logger);
  const exit = new ProcessExit({
    logger,
    clock: systemClock,
    cleanup: () => shutdown.run(),
    exit: (code) => process.exit(code),
  });
  installProcessFaultHandlers({
    source: process,
    logger,
    output,
    exit,
    tellOperator: (line) => writeQuietly(process.stderr, line),
  });
  for (const warning of setup.unknownSettings) logger.warn(warning);
  return { setup, config, logger, exit, shutdown, instanceId: randomUUID() };
}

/** `SHARD_COUNT` set: this process starts and watches the shard processes, and runs no bot. */
async function runShardManager(app: App): Promise<void> {
  const { runShardManager } = await import('./app/lifecycle/shard-manager.ts');
  const manager = await runShardManager({
    ...app,
    entrypoint: fileURLToPath(import.meta.url),
    execArgv: process.execArgv,
  });
  if (manager !== undefined) {
    installShutdown({ logger: app.logger, shutdown: () => manager.stop(), followParent: false });
  }
}

/**
 * The bot's process, phase by phase; each phase registers the closing of what it opened, so
 * shutdown undoes the start in reverse.
 */
async function runBot(app: App, startedAt: number): Promise<void> {
  const { config, logger, shutdown, instanceId } = app;
  const phases = new StartupPhases({ logger, clock: systemClock, startedAt });
  phases.done('config', startedAt);
  const keyWarning = providerKeyWarning(config);
  if (keyWarning !== undefined) logger.warn(keyWarning);
  const shards = processShards(config.sharding);
  const gatewayHealth = new GatewayHealth({ clock: systemClock, shardIds: shards?.shardIds });
  // Before the database, so its queries are timed from the first one.
  const prometheus = await prometheusMetrics(config);
  const metrics = prometheus ?? noMetrics;
  const { database, secretBox, pingDatabase } = await phases.run('database', () =>
    openDatabasePhase({ config, logger, metrics, shutdown }),
  );
  const bus = await phases.run('migrations', () =>
    migrationsPhase({ database, instanceId, logger, shutdown }),
  );
  await resealInBackground({ database, secretBox, config, logger, shutdown });
  await serveMetrics(app, {
    metrics: prometheus,
    health: async () =>
      gatewayHealth.healthy() && (await pingDatabase(database.db).then(() => true)),
    details: () => ({ shards: gatewayHealth.report(), pid: process.pid, instanceId }),
  });
  const providers = await phases.run('providers', () =>
    createProviders({ config, catalogOverrides: app.setup.catalogOverrides, logger }),
  );
  const speech = await speechService(config, { logger, catalog: providers.catalog });
  const discord = await phases.run('discord-client', () =>
    createDiscordPhase({ ...app, shards, gatewayHealth, db: database.db }),
  );
  const tools = await phases.run('tools', () =>
    startTools(app, { database, metrics, prometheus, discord, shards }),
  );
  const { DiscordBot } = await import('./bot/discord-bot.ts');
  const bot = new DiscordBot({
    client: discord.client,
    db: database.db,
    embeddedDatabase: database.kind === 'pglite',
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
    bus,
    shutdownGraceMs: config.shutdownGraceMs,
    messageWaitLimitMs: config.messageWaitLimitMs,
    sceneTurnLimit: config.sceneTurnLimit,
    isAlive: (other) => database.liveness.isAlive(other),
    shards,
    canJudgePeers: () => database.liveness.canJudgePeers(),
    delivery: discord.delivery,
    caches: config.caches,
    speech,
    voiceChannels: config.voiceChannels,
  });
  bot.attach();
  await announceWhenReady(app, { client: discord.client, phases, reminders: tools.reminders });
  giveMemoryBackAtRest(app, { client: discord.client, atRest: () => bot.atRest() });
  scheduleMaintenance({ database, logger, shutdown, afterEach: () => bot.recoverUnanswered() });
  shutdown.add('discord client', () => discord.client.destroy());
  shutdown.add('gateway monitor', () => discord.monitor.close());
  shutdown.add('bot', () => bot.shutdown());
  installShutdown({ logger, shutdown: () => shutdown.run(), followParent: shards !== undefined });
  await phases.run('discord-login', () => discord.client.login(config.discordToken));
}

/** Voice messages in and out, when SPEECH_PROVIDER is set; its SDK loads only then. */
async function speechService(
  config: App['config'],
  options: { logger: App['logger']; catalog: ModelCatalog },
): Promise<SpeechService | undefined> {
  const { logger } = options;
  if (config.speech === undefined) return undefined;
  const { createSpeechService } = await import('./providers/speech/speech-factory.ts');
  logger.info(
    { provider: config.speech.provider, server: config.speech.baseUrl ?? 'openai' },
    'voice messages on',
  );
  return createSpeechService({
    settings: config.speech,
    catalog: options.catalog,
    clock: systemClock,
    random: Math.random,
    logger: logger.child({ component: 'speech' }),
  });
}

/**
 * The metrics, kept only when they are served (METRICS_PORT): prom-client and its series cost
 * memory and CPU on every turn and query that nobody would read.
 */
async function prometheusMetrics(config: Config): Promise<PrometheusMetrics | undefined> {
  if (config.metricsPort === undefined) return undefined;
  const { PrometheusMetrics } = await import('./metrics/prometheus-metrics.ts');
  return new PrometheusMetrics({ constantLabels: shardBindings(config.sharding) });
}

/** `/metrics` and `/healthz`, when METRICS_PORT is set. */
async function serveMetrics(
  app: App,
  served: {
    metrics: PrometheusMetrics | undefined;
    health: () => Promise<boolean>;
    details: () => Record<string, unknown>;
  },
): Promise<void> {
  const { config, logger } = app;
  const { metrics } = served;
  if (config.metricsPort === undefined || metrics === undefined) return;
  const { startMetricsServer } = await import('./metrics/metrics-server.ts');
  const server = await startMetricsServer({
    port: config.metricsPort,
    host: config.metricsHost,
    logger,
    ...served,
    metrics,
  });
  app.shutdown.add('metrics server', () => server.close());
}

/** The tool registry: built-in tools, the reminder scheduler and the operator's MCP servers. */
async function startTools(
  app: App,
  parts: {
    database: DatabaseHandle;
    metrics: BotMetrics;
    prometheus: PrometheusMetrics | undefined;
    discord: DiscordConnection;
    shards: ProcessShards | undefined;
  },
) {
  const { createTools } = await import('./tools/create-tools.ts');
  const { DiscordToolActions } = await import('./bot/delivery/discord-tool-actions.ts');
  const actions = new DiscordToolActions(parts.discord.client, parts.discord.delivery);
  const tools = await createTools({
    db: parts.database.db,
    clock: systemClock,
    logger: app.logger,
    mcpServers: app.setup.mcpServers,
    metrics: parts.metrics,
    discordActions: actions,
    reminderDelivery: actions,
    reminderShards: parts.shards,
  });
  app.shutdown.add('tools', () => tools.close());
  parts.prometheus?.observeMcpServers(() =>
    tools.mcp.states().map((state) => ({ name: state.name, up: state.status === 'ready' })),
  );
  return tools;
}

/**
 * Once connected: the "ready" line (with the invite link, a warning when the bot is in no
 * server yet) and the reminder scheduler, which delivers through the client.
 */
async function announceWhenReady(
  app: App,
  parts: {
    client: DiscordClient;
    phases: StartupPhases;
    reminders: { run(signal: AbortSignal): Promise<void> };
  },
): Promise<void> {
  const { logger, instanceId } = app;
  const { inviteLink } = await import('./bot/client/invite-link.ts');
  const background = new AbortController();
  app.shutdown.add('reminders', () => background.abort());
  parts.client.once('clientReady', (ready) => {
    const startupMs = parts.phases.elapsedMs();
    const guilds = ready.guilds.cache.size;
    logger.info({ user: ready.user.tag, guilds, instanceId, startupMs }, 'connected to Discord');
    const url = inviteLink(ready.application.id);
    if (guilds === 0)
      logger.warn({ url }, 'the bot is in no server yet: open this link to invite it');
    else logger.info({ url }, 'invite link (scopes bot + applications.commands)');
    void parts.reminders.run(background.signal);
  });
}

/**
 * Once connected, memory goes back to the system whenever the process falls quiet
 * (app/lifecycle/rest-collection.ts); not before, so a slow gateway does not spend the
 * collection on a start that has not finished.
 */
function giveMemoryBackAtRest(
  app: App,
  parts: { client: DiscordClient; atRest: () => boolean },
): void {
  const probes = v8Memory();
  if (probes === undefined) {
    app.logger.debug('started without --expose-gc: memory is not given back at rest');
    return;
  }
  const stop = new AbortController();
  app.shutdown.add('rest collection', () => stop.abort());
  parts.client.once('clientReady', () => {
    const { logger } = app;
    void collectAtRest({
      clock: systemClock,
      probes,
      logger,
      atRest: parts.atRest,
      signal: stop.signal,
    });
  });
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
      // A shard process reads the same `.env` as its manager, which has already said it.
      unknownSettings:
        config.sharding.role === 'shard'
          ? []
          : unknownSettingWarnings({
              directory: process.cwd(),
              mcpConfigPath: config.mcpConfigPath,
            }),
    };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    for (const problem of error.problems) {
      process.stderr.write(`Configuration error: ${problem}\n`);
    }
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
