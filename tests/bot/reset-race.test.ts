/**
 * No accepted message waits forever, through the real bot process, discord.js and the loopback
 * Discord: a server admin's sequence that once left a mention waiting for good (a member's
 * refused `/config model`, a mention, an admin's `/config model`, a mention, `/reset` the
 * moment that reply appears, then a mention), and the watchdog (MESSAGE_WAIT_LIMIT_MS) that
 * tells a member whose message waited too long, and logs why.
 */
import { PermissionFlagsBits } from 'discord-api-types/v10';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeDiscord } from '../fake-discord/fake-discord.ts';
import { createGate } from '../support/llm-stand-in/gate.ts';
import { textScript } from '../support/llm-stand-in/script.ts';
import { startHarness, waitForTurn, type BotHarness } from './support/bot-harness.ts';
import { commandsRegistered } from './support/slash-commands.ts';

const WAIT_LIMIT_MS = 4_000;

function buildWorld(discord: FakeDiscord) {
  const guild = discord.createGuild({ name: 'Harbour' });
  const managers = discord.createRole({
    guildId: guild.id,
    name: 'Managers',
    permissions: PermissionFlagsBits.ManageGuild | PermissionFlagsBits.ManageMessages,
  });
  const admin = discord.createUser({ username: 'admin' });
  discord.addMember({ guildId: guild.id, userId: admin.id, roleIds: [managers.id] });
  const member = () => {
    const user = discord.createUser({ username: `member-${String(Math.random()).slice(2, 8)}` });
    discord.addMember({ guildId: guild.id, userId: user.id });
    return user;
  };
  const channel = (name: string) => discord.createChannel({ guildId: guild.id, name });
  return { guild, admin, member, channel };
}

describe('an accepted message never waits forever', { timeout: 120_000 }, () => {
  let harness: BotHarness<ReturnType<typeof buildWorld>>;
  beforeAll(async () => {
    harness = await startHarness({
      setup: buildWorld,
      env: { MESSAGE_WAIT_LIMIT_MS: String(WAIT_LIMIT_MS) },
    });
    await commandsRegistered(harness.discord, harness.bot);
  }, 120_000);
  afterAll(() => harness.dispose());

  it('a mention right after /reset stopped the reply still finishing before it is answered', async () => {
    const { discord, llm, bot, world } = harness;
    llm.handle(() => ({
      ...textScript('Here is my answer.\n\nAnd a little more.'),
      eventDelayMs: 150,
    }));
    const channel = world.channel('reset-race');
    const member = world.member();
    const config = { channelId: channel.id, command: 'config', subcommand: 'model' };
    const mention = (text: string) =>
      discord.postMessage({
        authorId: member.id,
        channelId: channel.id,
        content: `<@${discord.botUserId}> ${text}`,
      });
    await discord
      .invokeSlashCommand({
        ...config,
        userId: member.id,
        options: { name: 'gpt-5.4-nano' },
        bypassDefaultMemberPermissions: true,
      })
      .waitForOriginal();
    await waitForTurn(bot, mention('first question').id);
    await discord
      .invokeSlashCommand({ ...config, userId: world.admin.id, options: { name: 'gpt-5.4-nano' } })
      .waitForOriginal();
    const reply = discord.waits.message({ channelId: channel.id, authorId: discord.botUserId });
    mention('second question');
    await reply;
    await discord
      .invokeSlashCommand({ userId: world.admin.id, channelId: channel.id, command: 'reset' })
      .waitForOriginal();
    const last = mention('third question');
    expect((await waitForTurn(bot, last.id, 30_000)).json?.['status']).toBe('complete');
  });

  it('tells a member whose message waited past the limit behind a reply that never ends, and logs why', async () => {
    const { discord, llm, bot, world } = harness;
    const gate = createGate();
    llm.enqueue({
      steps: [
        { type: 'text', text: 'A reply that hangs after its first paragraph.\n\n' },
        { type: 'hold', gate },
        { type: 'text', text: 'Finally done.' },
        { type: 'finish', reason: 'stop' },
      ],
    });
    llm.handle(() => textScript('Answered later.'));
    const channel = world.channel('stuck');
    const [first, second] = [world.member(), world.member()];
    const firstReply = discord.waits.message({
      channelId: channel.id,
      authorId: discord.botUserId,
    });
    discord.postMessage({
      authorId: first.id,
      channelId: channel.id,
      content: `<@${discord.botUserId}> tell me everything`,
    });
    await firstReply;
    const waiting = discord.postMessage({
      authorId: second.id,
      channelId: channel.id,
      content: `<@${discord.botUserId}> and me?`,
    });
    const notice = await discord.waits.message({
      channelId: channel.id,
      authorId: discord.botUserId,
      where: (message) => message.message_reference?.message_id === waiting.id,
    });
    expect(notice.content).toContain("couldn't get to your message in time");
    const logged = await bot.waitForLog(
      (line) =>
        line.json?.['kind'] === 'waiting' &&
        Array.isArray(line.json['messageIds']) &&
        line.json['messageIds'].includes(waiting.id),
    );
    expect(logged.json?.['waitedMs']).toBeGreaterThanOrEqual(WAIT_LIMIT_MS);
    gate.release();
  });
});
