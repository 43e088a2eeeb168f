/**
 * The slash-command plumbing end to end: registration by definition hash (global, or to
 * DEV_GUILD_ID), routing, localized replies with explicit allowed_mentions, and the runtime
 * permission check behind `default_member_permissions`.
 */
import { MessageFlags } from 'discord-api-types/v10';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeDiscord, type FakeDiscord } from '../fake-discord/fake-discord.ts';
import { startBot } from '../support/scenario-runner.ts';
import { createWorld, startHarness, type BotHarness } from './support/bot-harness.ts';
import { commandsRegistered } from './support/slash-commands.ts';

describe('slash commands', () => {
  let harness: BotHarness<ReturnType<typeof createWorld>>;

  beforeAll(async () => {
    harness = await startHarness({ setup: (discord) => createWorld(discord) });
  });
  afterAll(() => harness.dispose());

  it('registers the commands globally when no DEV_GUILD_ID is set', async () => {
    const { outcome, commands } = await commandsRegistered(harness.discord, harness.bot);
    expect(outcome).toBe('registered');
    expect(commands.map((command) => command.name)).toContain('help');
  });

  it('answers /help ephemerally in the invoker’s language, pinging no one', async () => {
    const { discord, world } = harness;
    await commandsRegistered(discord, harness.bot);
    const english = discord.invokeSlashCommand({
      userId: world.alice.id,
      channelId: world.channel.id,
      command: 'help',
    });
    const englishReply = await english.waitForOriginal();
    expect((englishReply.flags ?? 0) & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);
    expect(englishReply.embeds?.[0]?.description).toContain('/help');
    expect(englishReply.embeds?.[0]?.title).toBe('How to talk to me');

    const japanese = discord.invokeSlashCommand({
      userId: world.bob.id,
      channelId: world.channel.id,
      command: 'help',
      locale: 'ja',
    });
    const japaneseReply = await japanese.waitForOriginal();
    expect(japaneseReply.embeds?.[0]?.title).toBe('話しかけ方');
    expect(japaneseReply.embeds?.[0]?.description).toContain('できることと話しかけ方');

    for (const handle of [english, japanese]) {
      const sent = handle.record.callbacks[0]?.data as { allowed_mentions?: unknown } | undefined;
      expect(sent?.allowed_mentions).toMatchObject({ parse: [] });
    }
  });
});

describe('slash command registration by definition hash', () => {
  let discord: FakeDiscord;

  beforeAll(async () => {
    discord = await startFakeDiscord({ rateLimitTimeScale: 0.1, waitTimeoutMs: 60_000 });
  });
  afterAll(() => discord.close());

  it('registers to DEV_GUILD_ID once, and a restart with the same definitions writes nothing', async () => {
    const guild = discord.createGuild({ name: 'Dev' });
    const env = { OPENAI_API_KEY: 'sk-unused', DEV_GUILD_ID: guild.id };
    const first = startBot({ discord, env });
    try {
      await first.waitUntilConnected();
      const { outcome, commands } = await commandsRegistered(discord, first, guild.id);
      expect(outcome).toBe('registered');
      expect(commands.length).toBeGreaterThan(0);
      expect(discord.commands()).toEqual([]);
      await first.stop();
      const writes = () =>
        discord.requests({ route: /^\/applications\// }).filter((entry) => entry.method === 'PUT');
      expect(writes()).toHaveLength(1);

      const second = startBot({ discord, env, dataDir: first.dataDir });
      try {
        await second.waitUntilConnected();
        const again = await commandsRegistered(discord, second, guild.id);
        expect(again.outcome).toBe('unchanged');
        expect(writes()).toHaveLength(1);
      } finally {
        await second.dispose();
      }
    } finally {
      await first.dispose();
    }
  });
});
