import path from 'node:path';
import { silentLogger } from '../../../src/core/logger.ts';
import { openDatabase, type Database } from '../../../src/db/database.ts';
import {
  createBotDatabase,
  e2eDatabaseKind,
  type BotDatabase,
  type BotDatabaseKind,
} from '../../support/bot-database.ts';
import type { FakeDiscordOptions } from '../../fake-discord/fake-discord-options.ts';
import { startFakeDiscord, type FakeDiscord } from '../../fake-discord/fake-discord.ts';
import { LlmStandIn } from '../../support/llm-stand-in/llm-stand-in.ts';
import { startBot, type BotProcess } from '../../support/scenario-runner.ts';
import { makeTemporaryFolder, removeTemporaryFolder } from '../../support/test-resources.ts';

export interface BotHarness<World = undefined> {
  discord: FakeDiscord;
  world: World;
  llm: LlmStandIn;
  bot: BotProcess;
  dataDir: string;
  /** The database the bot runs on (this vitest project's: PGlite, or PostgreSQL). */
  database: BotDatabase;
  /** Opens the bot's database (migrated) for `action` — on PGlite only while the bot is stopped. */
  withDatabase(action: (db: Database) => Promise<void>): Promise<void>;
  /** Ends the bot (its whole process group), the stand-ins, the database and the DATA_DIR. */
  dispose(): Promise<void>;
}

export const TEST_API_KEY = 'sk-test-operator-key-0123456789';
export const TEST_MODEL = 'gpt-5.4-mini';

/**
 * The real bot process (`node src/main.ts`) against the loopback Discord and the LLM
 * stand-in (OpenAI wire format), on the embedded database in a fresh DATA_DIR — or, in the
 * `e2e-postgres` project, on a fresh database of the TEST_DATABASE_URL server. `seed` writes
 * to that database before the bot starts (settings a slash command would otherwise set).
 * Whatever fails on the way, everything started so far is ended again.
 */
export async function startHarness<World = undefined>(
  options: {
    discord?: FakeDiscordOptions;
    env?: Record<string, string>;
    /** More of the bot's environment, once the stand-in's addresses are known. */
    envFor?: (llm: LlmStandIn) => Record<string, string>;
    /** Builds the Discord world before the bot starts (its ids are known to `seed`). */
    setup?: (discord: FakeDiscord) => World;
    seed?: (db: Database, world: World) => Promise<void>;
    /** Default: the kind of this vitest project (`E2E_DATABASE`). */
    databaseKind?: BotDatabaseKind;
    /** The PostgreSQL server to create the bot's database on (default: TEST_DATABASE_URL's). */
    serverUrl?: string;
    /** How long start-up (migrations included) may take; the runner's ceiling otherwise. */
    connectTimeoutMs?: number;
    /** Node's arguments for the bot process (default: the entrypoint, see scenario-runner.ts). */
    nodeArguments?: readonly string[];
  } = {},
): Promise<BotHarness<World>> {
  const teardown: Array<() => Promise<unknown>> = [];
  const dispose = async (): Promise<void> => {
    const errors: unknown[] = [];
    for (const step of teardown.splice(0).reverse())
      await step().catch((error: unknown) => errors.push(error));
    if (errors.length > 0) throw new AggregateError(errors, 'the harness did not end cleanly');
  };
  try {
    const discord = await startFakeDiscord({
      rateLimitTimeScale: 0.1,
      waitTimeoutMs: 60_000,
      ...options.discord,
    });
    teardown.push(() => discord.close());
    const llm = await LlmStandIn.start();
    teardown.push(() => llm.close());
    const dataDir = makeTemporaryFolder('bot-e2e-');
    teardown.push(() => Promise.resolve(removeTemporaryFolder(dataDir)));
    const database = await createBotDatabase({
      kind: options.databaseKind ?? e2eDatabaseKind(),
      dataDir,
      ...(options.serverUrl === undefined ? {} : { serverUrl: options.serverUrl }),
    });
    teardown.push(() => database.dispose());
    const withDatabase = async (action: (db: Database) => Promise<void>): Promise<void> => {
      const handle = await database.open();
      try {
        await action(handle.db);
      } finally {
        await handle.close();
      }
    };
    const world = options.setup?.(discord) as World;
    const seed = options.seed;
    if (seed !== undefined) await withDatabase((db) => seed(db, world));
    const bot = startBot({
      discord,
      dataDir,
      ...(options.nodeArguments === undefined ? {} : { nodeArguments: options.nodeArguments }),
      env: {
        ...database.environment,
        OPENAI_BASE_URL: llm.openAIBaseUrl,
        OPENAI_API_KEY: TEST_API_KEY,
        DEFAULT_PROVIDER: 'openai',
        DEFAULT_MODEL: TEST_MODEL,
        ...options.env,
        ...options.envFor?.(llm),
      },
    });
    teardown.push(() => bot.dispose());
    await bot.waitUntilConnected(
      options.connectTimeoutMs === undefined ? {} : { timeoutMs: options.connectTimeoutMs },
    );
    return { discord, world, llm, bot, dataDir, database, withDatabase, dispose };
  } catch (error) {
    await dispose().catch(() => undefined);
    throw error;
  }
}

/**
 * Opens the embedded database of a DATA_DIR the bot is not running on, migrated. (A harness's
 * `withDatabase` does the same on whichever database its bot uses.)
 */
export async function seedDatabase(
  dataDir: string,
  seed: (db: Database) => Promise<void>,
): Promise<void> {
  const handle = await openDatabase({
    kind: 'pglite',
    dataDir: path.join(dataDir, 'pglite'),
    logger: silentLogger,
  });
  try {
    await handle.migrate();
    await seed(handle.db);
  } finally {
    await handle.close();
  }
}

/** A guild with a text channel and two members, ready for a scenario. */
export function createWorld(discord: FakeDiscord, name = 'Test') {
  const guild = discord.createGuild({ name });
  const channel = discord.createChannel({ guildId: guild.id, name: 'general' });
  const alice = discord.createUser({ username: 'alice' });
  const bob = discord.createUser({ username: 'bob' });
  discord.addMember({ guildId: guild.id, userId: alice.id });
  discord.addMember({ guildId: guild.id, userId: bob.id });
  return { guild, channel, alice, bob };
}

/** Every create and edit the bot sent to a channel's messages. */
export function botWrites(discord: FakeDiscord, channelId?: string) {
  return discord
    .requests({ route: /^\/channels\/\d+\/messages(\/\d+)?$/ })
    .filter((entry) => entry.method === 'POST' || entry.method === 'PATCH')
    .filter((entry) => channelId === undefined || entry.path.startsWith(`/channels/${channelId}/`));
}

/** Pings caused by the bot's own messages (the no-leak oracle). */
export function botPings(discord: FakeDiscord) {
  return discord.pings().filter((ping) => ping.authorId === discord.botUserId);
}

/** The bot's "turn finished" log line for the turn answering `messageId`. */
export function waitForTurn(bot: BotProcess, messageId: string, timeoutMs = 60_000) {
  return bot.waitForLog(
    (line) => line.json?.['msg'] === 'turn finished' && line.json['messageId'] === messageId,
    { timeoutMs },
  );
}

/** The bot's messages in a channel as a member sees them, oldest first. */
export function botMessagesIn(discord: FakeDiscord, channelId: string) {
  return discord
    .readChannel(channelId)
    .filter((message) => message.author.id === discord.botUserId)
    .sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
}
