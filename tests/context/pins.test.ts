/**
 * "Pin for Tomodachi" (a message menu command) and /pins end to end through the real
 * bot process and the loopback Discord: the author or a moderator pins, anyone else is
 * refused; a pinned message enters the next request; /pins list shows it and remove unpins it.
 */
import { MessageFlags, PermissionFlagsBits, type APIMessage } from 'discord-api-types/v10';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatRequests } from '../bot/support/chat-requests.ts';
import {
  botPings,
  createWorld,
  startHarness,
  waitForTurn,
  type BotHarness,
} from '../bot/support/bot-harness.ts';
import { botDatabase } from './support/bot-database.ts';
import { commandsRegistered } from '../bot/support/slash-commands.ts';

const PIN_MENU = 'Pin for Tomodachi';
const isEphemeral = (message: APIMessage) => ((message.flags ?? 0) & MessageFlags.Ephemeral) !== 0;

function setup(discord: BotHarness['discord']) {
  const world = createWorld(discord);
  const moderators = discord.createRole({
    guildId: world.guild.id,
    name: 'moderators',
    permissions: PermissionFlagsBits.ManageMessages,
  });
  const carol = discord.createUser({ username: 'carol' });
  discord.addMember({ guildId: world.guild.id, userId: carol.id });
  discord.build.updateMember({
    guildId: world.guild.id,
    userId: carol.id,
    roleIds: [moderators.id],
  });
  return { ...world, carol };
}

describe('pins', () => {
  let harness: BotHarness<ReturnType<typeof setup>>;

  let database: Awaited<ReturnType<typeof botDatabase>> | undefined;

  beforeAll(async () => {
    database = await botDatabase();
    harness = await startHarness({ setup, env: database.env, connectTimeoutMs: 150_000 });
    harness.llm.handle(() => ({
      steps: [
        { type: 'text', text: 'noted' },
        { type: 'finish', reason: 'stop' },
      ],
    }));
    await commandsRegistered(harness.discord, harness.bot);
  }, 200_000);
  afterAll(async () => {
    await harness.dispose();
    await database?.drop();
  });

  it('registers the menu command localized next to /pins', () => {
    const menu = harness.discord.commands().find((command) => command.name === PIN_MENU);
    expect(menu).toMatchObject({ type: 3, name_localizations: { ja: 'Tomodachiにピン留め' } });
  });

  it('lets the author or a moderator pin, refuses anyone else, and the pin reaches the model', async () => {
    const { discord, bot, llm, world } = harness;
    const ask = async (content: string) => {
      const posted = discord.postMessage({
        authorId: world.alice.id,
        channelId: world.channel.id,
        content: `<@${discord.botUserId}> ${content}`,
      });
      await waitForTurn(bot, posted.id, 30_000);
      return posted;
    };
    for (const filler of ['one', 'two', 'three']) await ask(filler); // the auto-pinned start
    const plan = await ask('the wifi password is on the fridge');
    const aside = discord.postMessage({
      authorId: world.bob.id,
      channelId: world.channel.id,
      content: 'the meeting room is B2',
    });

    const refused = await discord
      .invokeMessageCommand({ userId: world.bob.id, messageId: plan.id, command: PIN_MENU })
      .waitForOriginal();
    expect(isEphemeral(refused)).toBe(true);
    expect(refused.content).toContain('Only the author of this message');

    const byAuthor = await discord
      .invokeMessageCommand({ userId: world.alice.id, messageId: plan.id, command: PIN_MENU })
      .waitForOriginal();
    expect(byAuthor.content).toContain('📌 Pinned');
    const byModerator = await discord
      .invokeMessageCommand({
        userId: world.carol.id,
        messageId: aside.id,
        command: PIN_MENU,
        locale: 'ja',
      })
      .waitForOriginal();
    expect(byModerator.content).toContain('ピン留めしました');

    const list = await discord
      .invokeSlashCommand({
        userId: world.bob.id,
        channelId: world.channel.id,
        command: 'pins',
        subcommand: 'list',
      })
      .waitForOriginal();
    expect(isEphemeral(list)).toBe(true);
    const lines = (list.content ?? '').split('\n').slice(1);
    expect(lines).toHaveLength(5);
    expect(lines[3]).toContain('the wifi password is on the fridge');
    expect(lines[3]).toContain(`<@${world.alice.id}>`);
    expect(lines[4]).toContain('the meeting room is B2');

    const notYours = await discord
      .invokeSlashCommand({
        userId: world.bob.id,
        channelId: world.channel.id,
        command: 'pins',
        subcommand: 'remove',
        options: { number: 5 },
      })
      .waitForOriginal();
    expect(notYours.content).toContain('Only whoever pinned it');

    const next = await ask('what did I say?');
    const last = chatRequests(llm.requests).at(-1);
    expect(JSON.stringify(last?.body)).toContain('the meeting room is B2');
    expect(next.id).toBeDefined();

    const removed = await discord
      .invokeSlashCommand({
        userId: world.carol.id,
        channelId: world.channel.id,
        command: 'pins',
        subcommand: 'remove',
        options: { number: 5 },
      })
      .waitForOriginal();
    expect(removed.content).toContain('Pin 5 removed');
    expect(botPings(discord)).toEqual([]);
  }, 180_000);
});
