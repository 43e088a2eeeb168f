/**
 * The real bot in the bench's own process, wired the way src/main.ts wires it: database
 * (migrated, liveness held, abandoned turns failed), a real discord.js client, the real
 * ProviderFactory pointed at the LLM stand-in, the real tools with the reminder scheduler
 * running, SecretBox, metrics and a pino logger at info (to a file, as stdout would carry it).
 * What main.ts adds and a bench does not need: config parsing, the metrics HTTP server, the
 * once-a-minute maintenance and signal handlers.
 */
import { DEFAULT_MESSAGE_WAIT_LIMIT_MS } from '../../src/app/config/config.ts';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import pino from 'pino';
import { DiscordBot } from '../../src/bot/discord-bot.ts';
import { GlobalRequestPacer } from '../../src/bot/rest/global-request-pacer.ts';
import { createDiscordClient } from '../../src/bot/client/discord-client.ts';
import { DiscordToolActions } from '../../src/bot/delivery/discord-tool-actions.ts';
import { DeliveryPort } from '../../src/bot/delivery/delivery-port.ts';
import { systemClock } from '../../src/core/clock.ts';
import { openDatabase } from '../../src/db/database.ts';
import { failAbandonedTurns } from '../../src/db/turn-recovery.ts';
import { createLogger } from '../../src/app/logging/logger.ts';
import { PrometheusMetrics } from '../../src/metrics/prometheus-metrics.ts';
import { ModelCatalog } from '../../src/providers/model-catalog.ts';
import { ProviderFactory } from '../../src/providers/provider-factory.ts';
import { resolveEncryptionKey } from '../../src/security/encryption-key.ts';
import { SecretBox } from '../../src/security/secret-box.ts';
import { createTools } from '../../src/tools/create-tools.ts';
import type { BenchDatabase } from './loopback-protocol.ts';
import type { SpeechService } from '../../src/core/speech.ts';

export const BENCH_MODEL = 'gpt-5.4-mini';
export const BENCH_API_KEY = 'sk-bench-operator-key-0123456789';

export interface InProcessBotOptions {
  discordApiUrl: string;
  discordToken: string;
  openAIBaseUrl: string;
  database: BenchDatabase;
  /** The log file goes here. */
  dataDir: string;
  /** Voice messages in and out, as SPEECH_PROVIDER=openai sets them up (voice.bench.ts). */
  speech?: SpeechService | undefined;
}

export interface InProcessBot {
  bot: DiscordBot;
  logFile: string;
  /** Shuts down like SIGTERM does: live turns finish, then everything closes in reverse. */
  close(): Promise<void>;
}

/** Starts the bot and resolves once discord.js is ready (guilds received). */
export async function startInProcessBot(options: InProcessBotOptions): Promise<InProcessBot> {
  const logFile = path.join(options.dataDir, 'bot.log');
  const logger = createLogger({
    level: 'info',
    secrets: [options.discordToken, BENCH_API_KEY],
    pretty: false,
    destination: pino.destination({ dest: logFile, sync: false }),
  });
  const cleanup: Array<() => Promise<unknown>> = [];
  const close = async (): Promise<void> => {
    for (const step of cleanup.reverse()) await step().catch(() => undefined);
    cleanup.length = 0;
  };
  try {
    const instanceId = randomUUID();
    const metrics = new PrometheusMetrics();
    const onQuery = metrics.databaseQuery.bind(metrics);
    // As with BOT_ENCRYPTION_KEY set: no key file is generated.
    const secretBox = new SecretBox(
      resolveEncryptionKey({
        configured: SecretBox.generateKey(),
        dataDir: options.dataDir,
        logger,
      }),
    );
    const database = await openDatabase(
      options.database.kind === 'pglite'
        ? { kind: 'pglite', dataDir: options.database.dataDir, logger, onQuery }
        : { kind: 'postgres', url: options.database.url, logger, onQuery },
    );
    cleanup.push(() => database.close());
    await database.migrate();
    cleanup.push(await database.liveness.hold(instanceId));
    await failAbandonedTurns(database.db, database.liveness);

    const client = createDiscordClient({
      apiUrl: options.discordApiUrl,
      pacer: new GlobalRequestPacer({ clock: systemClock }),
    });
    const providers = new ProviderFactory({
      defaults: {
        defaultProvider: 'openai',
        defaultModel: BENCH_MODEL,
        providerKeys: { openai: BENCH_API_KEY, anthropic: undefined, google: undefined },
        providerBaseUrls: {
          openai: options.openAIBaseUrl,
          anthropic: undefined,
          google: undefined,
        },
      },
      catalog: new ModelCatalog(),
      logger,
    });
    const delivery = new DeliveryPort({ clock: systemClock, logger });
    const discordActions = new DiscordToolActions(client, delivery);
    const tools = await createTools({
      db: database.db,
      clock: systemClock,
      logger,
      mcpServers: [],
      metrics,
      discordActions,
      reminderDelivery: discordActions,
    });
    cleanup.push(() => tools.close());
    const bot = new DiscordBot({
      client,
      db: database.db,
      embeddedDatabase: database.kind === 'pglite',
      secretBox,
      providers,
      tools: tools.registry,
      toolCatalog: tools.catalog,
      clock: systemClock,
      random: Math.random,
      logger,
      metrics,
      instanceId,
      ownerIds: [],
      shutdownGraceMs: 0,
      messageWaitLimitMs: DEFAULT_MESSAGE_WAIT_LIMIT_MS,
      isAlive: () => Promise.resolve(true),
      canJudgePeers: () => Promise.resolve(true),
      delivery,
      speech: options.speech,
    });
    bot.attach();
    const background = new AbortController();
    cleanup.push(() => Promise.resolve(background.abort()));
    const ready = new Promise<void>((resolve) => {
      client.once('clientReady', () => {
        void tools.reminders.run(background.signal);
        resolve();
      });
    });
    cleanup.push(() => client.destroy());
    cleanup.push(() => bot.shutdown());
    await client.login(options.discordToken);
    await ready;
    return {
      bot,
      logFile,
      close: async () => {
        await close();
        await new Promise<void>((resolve) => logger.flush(() => resolve()));
      },
    };
  } catch (error) {
    await close();
    throw error;
  }
}
