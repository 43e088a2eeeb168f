import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { silentLogger } from '../../../src/core/logger.ts';
import { openDatabase, type Database } from '../../../src/db/database.ts';
import type { FakeDiscordOptions } from '../../fake-discord/fake-discord-options.ts';
import { startFakeDiscord, type FakeDiscord } from '../../fake-discord/fake-discord.ts';
import { LlmStandIn } from '../../support/llm-stand-in/llm-stand-in.ts';
import { startBot, type BotProcess } from '../../support/scenario-runner.ts';

export interface BotHarness<World = undefined> {
  discord: FakeDiscord;
  world: World;
  llm: LlmStandIn;
  bot: BotProcess;
  dataDir: string;
  dispose(): Promise<void>;
}

export const TEST_API_KEY = 'sk-test-operator-key-0123456789';
export const TEST_MODEL = 'gpt-5.4-mini';

/**
 * The real bot process (`node src/index.ts`) against the loopback Discord and the LLM
 * stand-in (OpenAI wire format), on an embedded database in a fresh DATA_DIR. `seed` writes
 * to that database before the bot starts (settings a slash command would otherwise set).
 */
export async function startHarness<World = undefined>(
  options: {
    discord?: FakeDiscordOptions;
    env?: Record<string, string>;
    /** Builds the Discord world before the bot starts (its ids are known to `seed`). */
    setup?: (discord: FakeDiscord) => World;
    seed?: (db: Database, world: World) => Promise<void>;
    /** How long start-up (migrations included) may take; the runner's default otherwise. */
    connectTimeoutMs?: number;
  } = {},
): Promise<BotHarness<World>> {
  const discord = await startFakeDiscord({ rateLimitTimeScale: 0.1, ...options.discord });
  const llm = await LlmStandIn.start();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bot-e2e-'));
  const world = options.setup?.(discord) as World;
  const seed = options.seed;
  if (seed !== undefined) await seedDatabase(dataDir, (db) => seed(db, world));
  const bot = startBot({
    discord,
    dataDir,
    env: {
      OPENAI_BASE_URL: llm.openAIBaseUrl,
      OPENAI_API_KEY: TEST_API_KEY,
      DEFAULT_PROVIDER: 'openai',
      DEFAULT_MODEL: TEST_MODEL,
      ...options.env,
    },
  });
  await bot.waitUntilConnected(
    options.connectTimeoutMs === undefined ? {} : { timeoutMs: options.connectTimeoutMs },
  );
  return {
    discord,
    world,
    llm,
    bot,
    dataDir,
    async dispose() {
      await bot.dispose();
      await llm.close();
      await discord.close();
    },
  };
}

/** Opens the embedded database of a DATA_DIR the bot is not running on, migrated. */
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
export function waitForTurn(bot: BotProcess, messageId: string, timeoutMs = 15_000) {
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
