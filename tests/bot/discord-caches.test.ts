/**
 * discord.js's caches under the bot's limits (DISCORD_CACHE_*), through the real client against
 * the loopback Discord: a busy channel keeps only the newest messages, members and users, the
 * bot's own member and user stay, and a member dropped from the cache is fetched when the bot
 * needs their standing.
 */
import { PermissionFlagsBits, type Client, type Message } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDiscordClient } from '../../src/bot/client/discord-client.ts';
import { authorMember, standingOf } from '../../src/bot/intake/accepted-message.ts';
import { DEFAULT_CACHE_LIMITS } from '../../src/core/cache-limits.ts';
import { nextEvent } from '../fake-discord/discord-js-harness.ts';
import { startFakeDiscord, type FakeDiscord } from '../fake-discord/fake-discord.ts';

const LIMITS = {
  ...DEFAULT_CACHE_LIMITS,
  discordMessagesPerChannel: 3,
  discordMembersPerGuild: 2,
  discordUsers: 3,
};
const MEMBERS = 6;

let discord: FakeDiscord;
let client: Client;
let guildId: string;
let channelId: string;
let moderatorId: string;
let firstMessage: Message;

beforeAll(async () => {
  discord = await startFakeDiscord({ rateLimitTimeScale: 0.1 });
  guildId = discord.createGuild({ name: 'Busy server' }).id;
  channelId = discord.createChannel({ guildId, name: 'general' }).id;
  const moderators = discord.createRole({
    guildId,
    name: 'mods',
    permissions: PermissionFlagsBits.ManageMessages | PermissionFlagsBits.ViewChannel,
  });
  const authors = Array.from({ length: MEMBERS }, (_, index) => {
    const user = discord.createUser({ username: `member-${index}` });
    discord.addMember({
      guildId,
      userId: user.id,
      ...(index === 0 ? { roleIds: [moderators.id] } : {}),
    });
    return user.id;
  });
  moderatorId = authors[0] ?? '';
  client = createDiscordClient({ apiUrl: discord.apiUrl, caches: LIMITS });
  const ready = nextEvent(client, 'clientReady');
  await client.login(discord.token);
  await ready;
  const heard: Message[] = [];
  const all = new Promise<void>((resolve) => {
    client.on('messageCreate', (message) => {
      heard.push(message);
      if (heard.length === 2 * MEMBERS) resolve();
    });
  });
  for (let round = 0; round < 2; round += 1)
    for (const authorId of authors)
      discord.postMessage({ authorId, channelId, content: `hello ${round}` });
  await all;
  firstMessage = heard[0] as Message;
});

afterAll(async () => {
  await client?.destroy();
  await discord?.close();
});

describe('discord.js caches under the limits', () => {
  it('keeps the newest messages of a channel, and the bot’s own member and user among a few others', () => {
    const guild = client.guilds.cache.get(guildId);
    const channel = client.channels.cache.get(channelId);
    expect(channel?.isTextBased() && channel.messages.cache.size).toBe(3);
    expect(guild?.members.cache.size).toBeLessThanOrEqual(LIMITS.discordMembersPerGuild);
    expect(guild?.members.me?.id).toBe(discord.botUserId);
    expect(client.users.cache.size).toBeLessThanOrEqual(LIMITS.discordUsers);
    expect(client.users.cache.has(discord.botUserId)).toBe(true);
  });

  it('fetches a member dropped from the cache to judge their standing', async () => {
    expect(firstMessage.author.id).toBe(moderatorId);
    expect(firstMessage.member).toBeNull();
    const member = await authorMember(firstMessage);
    expect(member?.id).toBe(moderatorId);
    expect(standingOf(firstMessage, { ownerIds: [], member }).isModerator).toBe(true);
  });
});
