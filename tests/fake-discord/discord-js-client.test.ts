/**
 * The loopback Discord proven against the unmodified discord.js client: log-in, messages both
 * ways, DMs, commands, buttons, and Discord's refusals and rate limits as discord.js meets them.
 */
import {
  ActionRowBuilder,
  ButtonBuilder,
  ButtonStyle,
  ChannelType,
  Client,
  DiscordAPIError,
  MessageFlags,
  SlashCommandBuilder,
  type ChatInputCommandInteraction,
  type Message,
} from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, nextEvent } from './discord-js-harness.ts';
import { startFakeDiscord, type FakeDiscord } from './fake-discord.ts';

/** Discord's 5-per-5-s channel bucket runs as 5 per 500 ms. */
const TIME_SCALE = 0.1;

let discord: FakeDiscord;
let client: Client<true>;
let guildId: string;
let channelId: string;
let alice: string;

beforeAll(async () => {
  discord = await startFakeDiscord({ rateLimitTimeScale: TIME_SCALE });
  const guild = discord.createGuild({ name: 'Test server' });
  guildId = guild.id;
  channelId = discord.createChannel({ guildId, name: 'general', topic: 'chat' }).id;
  discord.build.addEmoji({ guildId, name: 'blobwave' });
  discord.build.addSticker({ guildId, name: 'wave' });
  alice = discord.createUser({ username: 'alice', globalName: 'Alice' }).id;
  discord.addMember({ guildId, userId: alice });
  client = await connectClient(discord);
});

afterAll(async () => {
  await client.destroy();
  await discord.close();
});

async function freshChannel(name: string): Promise<string> {
  const created = nextEvent(client, 'channelCreate', (channel) => channel.name === name);
  const id = discord.createChannel({ guildId, name }).id;
  await created;
  return id;
}

describe('discord.js against the loopback Discord', () => {
  it('logs in: gateway info over REST, READY, then the guild with channels, roles, emojis and stickers', () => {
    expect(discord.requests({ method: 'GET', route: '/gateway/bot' })[0]?.status).toBe(200);
    expect(client.user.id).toBe(discord.botUserId);
    expect(client.application.id).toBe(discord.applicationId);
    const guild = client.guilds.cache.get(guildId);
    expect(guild?.name).toBe('Test server');
    expect(guild?.channels.cache.get(channelId)?.name).toBe('general');
    expect(guild?.emojis.cache.map((emoji) => emoji.name)).toEqual(['blobwave']);
    expect(guild?.stickers.cache.map((sticker) => sticker.name)).toEqual(['wave']);
    const me = guild?.members.me;
    expect(me?.permissionsIn(channelId).has('SendMessages')).toBe(true);
    expect(me?.permissions.has('ManageGuild')).toBe(false);
  });

  it('refuses a wrong token with 401, which discord.js reports as TokenInvalid', async () => {
    const intruder = new Client({ intents: [], rest: { api: discord.apiUrl } });
    await expect(intruder.login('not-the-token')).rejects.toMatchObject({ code: 'TokenInvalid' });
    expect(discord.requests({ route: '/gateway/bot', status: 401 })).toHaveLength(1);
    await intruder.destroy();
  });

  it('delivers a member message with content, author and member', async () => {
    const received = nextEvent(client, 'messageCreate', (message) => message.author.id === alice);
    discord.postMessage({ authorId: alice, channelId, content: `hello <@${discord.botUserId}>` });
    const [message] = await received;
    expect(message.content).toBe(`hello <@${discord.botUserId}>`);
    expect(message.member?.user.username).toBe('alice');
    expect(message.mentions.users.has(discord.botUserId)).toBe(true);
  });

  it('sends, edits and deletes, and a member reading the channel sees each state', async () => {
    const channel = await client.channels.fetch(channelId);
    if (channel?.type !== ChannelType.GuildText) throw new Error('expected a text channel');
    const sent = await channel.send({ content: 'first draft', allowedMentions: { parse: [] } });
    expect(discord.readChannel(channelId, { as: alice }).at(-1)?.content).toBe('first draft');
    const edited = await sent.edit({ content: 'final text', allowedMentions: { parse: [] } });
    expect(edited.editedTimestamp).not.toBeNull();
    expect(discord.readChannel(channelId, { as: alice }).at(-1)).toMatchObject({
      content: 'final text',
    });
    await sent.delete();
    expect(
      discord.readChannel(channelId, { as: alice }).map((message) => message.id),
    ).not.toContain(sent.id);
    await expect(sent.edit('too late')).rejects.toMatchObject({ code: 10008, status: 404 });
  });

  it('shows the typing indicator until the bot posts', async () => {
    const channel = await client.channels.fetch(channelId);
    if (channel?.type !== ChannelType.GuildText) throw new Error('expected a text channel');
    await channel.sendTyping();
    const typing = discord
      .requests({ method: 'POST', route: '/channels/:channelId/typing' })
      .at(-1);
    expect(typing?.status).toBe(204);
    expect(typing?.responseBody).toBeUndefined();
    expect(discord.typingIn(channelId).map((entry) => entry.userId)).toEqual([discord.botUserId]);
    await channel.send({ content: 'done typing', allowedMentions: { parse: [] } });
    expect(discord.typingIn(channelId)).toEqual([]);
  });

  it('replies with a message reference; the reply pings its author only without allowed_mentions', async () => {
    const received = nextEvent(client, 'messageCreate', (message) => message.author.id === alice);
    discord.postMessage({ authorId: alice, channelId, content: 'question?' });
    const [question] = await received;
    const quiet = await question.reply({
      content: 'quiet answer',
      allowedMentions: { repliedUser: false },
    });
    const loud = await question.reply('loud answer');
    expect(quiet.reference?.messageId).toBe(question.id);
    expect(discord.message(quiet.id)?.referenced_message?.id).toBe(question.id);
    const pings = discord.pings().filter((ping) => ping.authorId === discord.botUserId);
    expect(pings.map((ping) => ping.messageId)).toEqual([loud.id]);
    expect(pings[0]).toMatchObject({
      userIds: [alice],
      repliedUser: true,
      allowedMentionsSent: false,
    });
  });

  it('carries DMs both ways: the DM channel arrives as a partial, and the bot can open one', async () => {
    const dm = discord.openDirectMessage(alice);
    const received = nextEvent(client, 'messageCreate', (message) => message.channelId === dm.id);
    discord.postMessage({ authorId: alice, channelId: dm.id, content: 'psst' });
    const [message] = await received;
    expect(message.channel.type).toBe(ChannelType.DM);
    expect(message.content).toBe('psst');
    await message.channel.send({ content: 'hello in private', allowedMentions: { parse: [] } });
    expect(discord.readChannel(dm.id, { as: alice }).map((entry) => entry.content)).toEqual([
      'psst',
      'hello in private',
    ]);

    const carol = discord.createUser({ username: 'carol' }).id;
    const sent = await (
      await client.users.fetch(carol)
    ).send({ content: 'hi carol', allowedMentions: { parse: [] } });
    expect(discord.requests({ method: 'POST', route: '/users/@me/channels' }).at(-1)?.status).toBe(
      200,
    );
    expect(
      discord.readChannel(sent.channelId, { as: carol }).map((entry) => entry.content),
    ).toEqual(['hi carol']);

    const private_ = discord.createUser({ username: 'private', acceptsDirectMessages: false }).id;
    await expect((await client.users.fetch(private_)).send('hi')).rejects.toMatchObject({
      status: 403,
      code: 50007,
    });
  });

  it('runs a slash command with deferReply, editReply and followUp', async () => {
    await client.application.commands.set(
      [
        new SlashCommandBuilder()
          .setName('ask')
          .setDescription('Ask something')
          .addStringOption((option) =>
            option.setName('question').setDescription('What').setRequired(true),
          )
          .toJSON(),
      ],
      guildId,
    );
    expect(discord.commands(guildId).map((command) => command.name)).toEqual(['ask']);
    const handled = nextEvent(client, 'interactionCreate', (interaction) =>
      interaction.isChatInputCommand(),
    );
    const invocation = discord.invokeSlashCommand({
      userId: alice,
      channelId,
      command: 'ask',
      options: { question: 'why?' },
      locale: 'ja',
    });
    const [interaction] = (await handled) as [ChatInputCommandInteraction];
    expect(interaction.options.getString('question')).toBe('why?');
    expect(interaction.locale).toBe('ja');
    expect(interaction.memberPermissions?.has('SendMessages')).toBe(true);
    await interaction.deferReply();
    expect((await invocation.response()).type).toBe(5);
    expect(invocation.original()?.flags).toBe(MessageFlags.Loading);
    await interaction.editReply({ content: 'because.', allowedMentions: { parse: [] } });
    await interaction.followUp({ content: 'one more thing', flags: MessageFlags.Ephemeral });
    expect((await invocation.waitForOriginal()).content).toBe('because.');
    expect(invocation.followUps().map((message) => [message.content, message.flags])).toEqual([
      ['one more thing', MessageFlags.Ephemeral],
    ]);
    const bobId = discord.createUser({ username: 'bob' }).id;
    discord.addMember({ guildId, userId: bobId });
    const seenByBob = discord
      .readChannel(channelId, { as: bobId })
      .map((message) => message.content);
    expect(seenByBob).toContain('because.');
    expect(seenByBob).not.toContain('one more thing');
  });

  it('delivers a button press, and the bot updates the message it sits on', async () => {
    const channel = await client.channels.fetch(channelId);
    if (channel?.type !== ChannelType.GuildText) throw new Error('expected a text channel');
    const row = new ActionRowBuilder<ButtonBuilder>().addComponents(
      new ButtonBuilder().setCustomId('retry').setLabel('Retry').setStyle(ButtonStyle.Primary),
    );
    const sent = await channel.send({ content: 'It failed.', components: [row] });
    const pressed = nextEvent(client, 'interactionCreate', (interaction) => interaction.isButton());
    const press = discord.pressButton({ userId: alice, messageId: sent.id, customId: 'retry' });
    const [interaction] = await pressed;
    if (!interaction.isButton()) throw new Error('expected a button');
    expect(interaction.customId).toBe('retry');
    expect(interaction.message.id).toBe(sent.id);
    await interaction.update({ content: 'Retrying…', components: [] });
    expect((await press.response()).type).toBe(7);
    expect(discord.message(sent.id)).toMatchObject({ content: 'Retrying…', components: [] });
  });

  it('rejects an over-length message with 400 and code 50035, storing nothing', async () => {
    const channel = await client.channels.fetch(channelId);
    if (channel?.type !== ChannelType.GuildText) throw new Error('expected a text channel');
    const before = discord.readChannel(channelId).length;
    const error = await channel.send('x'.repeat(2001)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DiscordAPIError);
    expect(error).toMatchObject({ status: 400, code: 50035 });
    expect((error as DiscordAPIError).message).toContain(
      'content[BASE_TYPE_MAX_LENGTH]: Must be 2000 or fewer in length.',
    );
    expect(discord.readChannel(channelId)).toHaveLength(before);
  });

  it('meets the channel bucket in a burst; discord.js paces the rest after the 429', async () => {
    const burstChannelId = await freshChannel('burst');
    // A freshly started bot: its REST queue has not yet learned which routes share a bucket.
    const coldClient = await connectClient(discord);
    const channel = await coldClient.channels.fetch(burstChannelId);
    if (channel?.type !== ChannelType.GuildText) throw new Error('expected a text channel');
    const quiet = { allowedMentions: { parse: [] } } as const;
    const first = await channel.send({ content: 'draft 0', ...quiet });
    // Creates and edits share the channel's bucket; discord.js learns that only from the headers.
    const writes = await Promise.all([
      ...[1, 2, 3, 4, 5, 6].map((index) => channel.send({ content: `message ${index}`, ...quiet })),
      ...[1, 2, 3].map((index) => first.edit({ content: `draft ${index}`, ...quiet })),
    ]);
    expect(writes).toHaveLength(9);
    const log = discord.requests({ route: new RegExp(`^/channels/${burstChannelId}/messages`) });
    const limited = log.filter((entry) => entry.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(limited[0]?.responseHeaders).toMatchObject({
      'x-ratelimit-scope': 'user',
      'x-ratelimit-remaining': '0',
    });
    expect(limited[0]?.responseBody).toMatchObject({
      global: false,
      retry_after: expect.any(Number) as number,
    });
    const succeeded = log.filter((entry) => entry.status === 200);
    expect(succeeded).toHaveLength(10);
    expect(
      new Set(succeeded.map((entry) => entry.responseHeaders['x-ratelimit-bucket'])).size,
    ).toBe(1);
    // Never more than 5 successful writes inside one window.
    for (const entry of succeeded) {
      const inWindow = succeeded.filter(
        (other) =>
          other.startedAt >= entry.startedAt &&
          other.startedAt < entry.startedAt + 5_000 * TIME_SCALE,
      );
      expect(inWindow.length).toBeLessThanOrEqual(5);
    }
    expect(discord.readChannel(burstChannelId).map((message) => message.content)).toHaveLength(7);
    await coldClient.destroy();
  });

  it('records an edit without allowed_mentions that contains @everyone as a ping', async () => {
    const pingChannelId = await freshChannel('announcements');
    const channel = await client.channels.fetch(pingChannelId);
    if (channel?.type !== ChannelType.GuildText) throw new Error('expected a text channel');
    const message: Message = await channel.send({
      content: 'Hello @everyone',
      allowedMentions: { parse: [] },
    });
    expect(discord.pings().filter((ping) => ping.channelId === pingChannelId)).toEqual([]);
    await message.edit({ content: 'Hello again @everyone' });
    const pings = discord.pings().filter((ping) => ping.channelId === pingChannelId);
    expect(pings).toEqual([
      expect.objectContaining({
        messageId: message.id,
        operation: 'edit',
        everyone: true,
        allowedMentionsSent: false,
      }),
    ]);
    expect(discord.message(message.id)?.mention_everyone).toBe(true);
  });
});
