/**
 * Channel and context settings through the real bot process, the loopback Discord and the LLM
 * stand-in: a channel's own persona and humanizer (`scope: channel`) reach the next request in
 * that channel only and `/config show` says where each value comes from; `/config timezone`
 * moves the context's date line and `current_time`; `/config answer-bots` answers another bot
 * at most three times in a row until a person writes.
 */
import { PermissionFlagsBits } from 'discord-api-types/v10';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeDiscord } from '../fake-discord/fake-discord.ts';
import type { RecordedRequest } from '../support/llm-stand-in/recorded-request.ts';
import {
  botMessagesIn,
  startHarness,
  waitForTurn,
  type BotHarness,
} from '../bot/support/bot-harness.ts';
import { chatRequests } from '../bot/support/chat-requests.ts';
import { commandsRegistered } from '../bot/support/slash-commands.ts';

function buildWorld(discord: FakeDiscord) {
  const guild = discord.createGuild({ name: 'Harbour' });
  const managers = discord.createRole({
    guildId: guild.id,
    name: 'Managers',
    permissions: PermissionFlagsBits.ManageGuild,
  });
  const general = discord.createChannel({ guildId: guild.id, name: 'general' });
  const lounge = discord.createChannel({ guildId: guild.id, name: 'lounge' });
  const admin = discord.createUser({ username: 'admin' });
  discord.addMember({ guildId: guild.id, userId: admin.id, roleIds: [managers.id] });
  const member = discord.createUser({ username: 'member' });
  discord.addMember({ guildId: guild.id, userId: member.id });
  const otherBot = discord.createUser({ username: 'chatterbot', bot: true });
  discord.addMember({ guildId: guild.id, userId: otherBot.id });
  return { guild, managers, general, lounge, admin, member, otherBot };
}

type World = ReturnType<typeof buildWorld>;

describe('per-channel settings, time zone and bot replies', () => {
  let harness: BotHarness<World>;

  beforeAll(async () => {
    harness = await startHarness({ setup: buildWorld });
    harness.llm.handle((request) =>
      // The time zone scenario asks for the time; everything else gets a plain answer.
      request.lastUserText.includes('what time is it') &&
      !JSON.stringify(request.body).includes('"role":"tool"')
        ? {
            steps: [
              {
                type: 'tool-calls',
                calls: [{ id: 'call-time', name: 'current_time', arguments: '{}' }],
              },
              { type: 'finish', reason: 'tool_calls' },
            ],
          }
        : {
            steps: [
              { type: 'text', text: 'Sure.' },
              { type: 'finish', reason: 'stop' },
            ],
          },
    );
    await commandsRegistered(harness.discord, harness.bot);
  }, 200_000);
  afterAll(() => harness.dispose());

  /**
   * A fresh member holding Manage Server for each command: a burst of /config stays within one
   * user's cooldown allowance.
   */
  let admins = 0;
  function newAdmin(): string {
    const { discord, world } = harness;
    admins += 1;
    const user = discord.createUser({ username: `admin-${admins}` });
    discord.addMember({ guildId: world.guild.id, userId: user.id, roleIds: [world.managers.id] });
    return user.id;
  }

  async function config(
    channelId: string,
    subcommand: string,
    options: Record<string, string | number | boolean> = {},
  ) {
    const { discord } = harness;
    return discord
      .invokeSlashCommand({
        userId: newAdmin(),
        channelId,
        command: 'config',
        subcommand,
        options,
      })
      .waitForOriginal();
  }

  async function showField(channelId: string, name: string): Promise<string> {
    const shown = await config(channelId, 'show');
    return shown.embeds?.[0]?.fields?.find((field) => field.name === name)?.value ?? '';
  }

  /** Posts as `authorId` and returns the first chat request of the turn it starts. */
  async function ask(options: {
    channelId: string;
    content: string;
    authorId?: string;
  }): Promise<RecordedRequest | undefined> {
    const { discord, llm, bot, world } = harness;
    const before = chatRequests(llm.requests).length;
    const message = discord.postMessage({
      authorId: options.authorId ?? world.member.id,
      channelId: options.channelId,
      content: `<@${discord.botUserId}> ${options.content}`,
    });
    await waitForTurn(bot, message.id);
    return chatRequests(llm.requests)[before];
  }

  it('gives one channel its own persona and humanizer, and says so in /config show', async () => {
    const { discord, world } = harness;
    const form = discord.invokeSlashCommand({
      userId: world.admin.id,
      channelId: world.lounge.id,
      command: 'config',
      subcommand: 'persona',
      options: { scope: 'channel' },
    });
    await form.response();
    expect(form.modal()?.custom_id).toBe('config:persona:channel');
    const saved = await form
      .submitModal({ name: 'Captain', instructions: 'You talk like a ship captain.' })
      .waitForOriginal();
    expect(saved.content).toContain('Persona saved: **Captain**.');
    expect(saved.content).toContain('This channel only');
    const humanizer = await config(world.lounge.id, 'humanizer', { level: 0, scope: 'channel' });
    expect(humanizer.content).toContain('Off: plain replies (0)');

    const inLounge = await ask({ channelId: world.lounge.id, content: 'ahoy?' });
    expect(inLounge?.systemText).toContain('You are Captain. You talk like a ship captain.');
    // Level 0 sends no chat-style hint; the server's level 1 does.
    expect(inLounge?.systemText).not.toContain('You are chatting on Discord.');
    const inGeneral = await ask({ channelId: world.general.id, content: 'hello?' });
    expect(inGeneral?.systemText).toContain('You are Tomo.');
    expect(inGeneral?.systemText).toContain('You are chatting on Discord.');

    expect(await showField(world.lounge.id, 'Persona')).toMatch(
      /^\*\*Captain\*\*: .*\(this channel\)$/,
    );
    expect(await showField(world.lounge.id, 'Humanizer')).toBe(
      'Off: plain replies (0) (this channel)',
    );
    expect(await showField(world.general.id, 'Persona')).toBe('**Tomo** (default)');

    // A server persona applies everywhere the channel has none of its own.
    await config(world.general.id, 'persona', { preset: 'concise' });
    expect(await showField(world.general.id, 'Persona')).toMatch(/\(server\)$/);
    expect(await showField(world.lounge.id, 'Persona')).toMatch(/^\*\*Captain\*\*/);
    const cleared = await config(world.lounge.id, 'persona', {
      preset: 'default',
      scope: 'channel',
    });
    expect(cleared.content).toBe('This channel’s persona now follows the server’s.');
    expect(await showField(world.lounge.id, 'Persona')).toMatch(/\(server\)$/);
  });

  it('refuses a channel persona to a member without Manage Server', async () => {
    const { discord, world } = harness;
    const refused = await discord
      .invokeSlashCommand({
        userId: world.member.id,
        channelId: world.lounge.id,
        command: 'config',
        subcommand: 'humanizer',
        options: { level: 3, scope: 'channel' },
        bypassDefaultMemberPermissions: true,
      })
      .waitForOriginal();
    expect(refused.content).toContain('**Manage Server**');
    expect(await showField(world.lounge.id, 'Humanizer')).toBe(
      'Off: plain replies (0) (this channel)',
    );
  });

  it('puts the server’s time zone in the date line and in current_time', async () => {
    const { discord, llm, world } = harness;
    const suggestions = discord.interactions.autocomplete({
      userId: world.admin.id,
      channelId: world.general.id,
      command: 'config',
      subcommand: 'timezone',
      options: { zone: 'tok' },
      focused: 'zone',
    });
    await suggestions.response();
    expect(suggestions.choices()?.[0]).toMatchObject({ value: 'Asia/Tokyo' });
    expect(
      (await config(world.general.id, 'timezone', { zone: 'Mars/Olympus' })).content,
    ).toContain('not a time zone I know');
    expect((await config(world.general.id, 'timezone', { zone: 'asia/tokyo' })).content).toMatch(
      /^Time zone: \*\*Asia\/Tokyo\*\*/,
    );
    const before = chatRequests(llm.requests).length;
    const asked = await ask({ channelId: world.general.id, content: 'what time is it?' });
    expect(JSON.stringify(asked?.body)).toMatch(/Current time: [^"]*\(Asia\/Tokyo\)/);
    const afterTool = chatRequests(llm.requests).slice(before + 1);
    expect(JSON.stringify(afterTool.map((request) => request.body))).toContain(
      'in Asia/Tokyo (UTC+09:00)',
    );
    expect(await showField(world.general.id, 'Time zone')).toBe('`Asia/Tokyo` (server)');
  });

  it('answers another bot at most three times in a row, until a person writes', async () => {
    const { discord, bot, world } = harness;
    const switched = await config(world.general.id, 'answer-bots', { enabled: true });
    expect(switched.content).toContain('at most 3 times in a row');
    for (const round of [1, 2, 3]) {
      await ask({
        channelId: world.lounge.id,
        authorId: world.otherBot.id,
        content: `bot ${round}`,
      });
    }
    // The fourth is not answered: the member's message after it is answered first and alone.
    const fourth = discord.postMessage({
      authorId: world.otherBot.id,
      channelId: world.lounge.id,
      content: `<@${discord.botUserId}> bot 4`,
    });
    const human = await ask({ channelId: world.lounge.id, content: 'a person speaks' });
    expect(human?.lastUserText).toContain('a person speaks');
    expect(
      bot
        .logs()
        .some(
          (line) => line.json?.['msg'] === 'turn finished' && line.json['messageId'] === fourth.id,
        ),
    ).toBe(false);
    // (Its text reaches the model only as history before the member's message.)
    const repliedTo = botMessagesIn(discord, world.lounge.id).map(
      (message) => message.message_reference?.message_id,
    );
    expect(repliedTo).not.toContain(fourth.id);
    // The person reset the count.
    const fifth = await ask({
      channelId: world.lounge.id,
      authorId: world.otherBot.id,
      content: 'bot 5',
    });
    expect(fifth?.lastUserText).toContain('bot 5');
  });

  it('puts each channel’s own values back too when /config reset is confirmed', async () => {
    const { discord, world } = harness;
    await config(world.lounge.id, 'humanizer', { level: 0, scope: 'channel' });
    expect(await showField(world.lounge.id, 'Humanizer')).toBe(
      'Off: plain replies (0) (this channel)',
    );
    const admin = newAdmin();
    const asked = discord.invokeSlashCommand({
      userId: admin,
      channelId: world.general.id,
      command: 'config',
      subcommand: 'reset',
    });
    const question = await asked.waitForOriginal();
    await discord
      .pressButton({ userId: admin, messageId: question.id, customId: 'config:reset' })
      .response();
    await asked.waitForOriginal((message) => message.content.startsWith('Every'));
    expect(await showField(world.lounge.id, 'Humanizer')).toBe(
      'Light: a chatty style (1) (default)',
    );
  });
});
