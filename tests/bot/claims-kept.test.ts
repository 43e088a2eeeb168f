/**
 * What a member is owed survives the bot's own end, through the real bot process, discord.js
 * and the loopback Discord: a mention heard during the shutdown grace is claimed and handed
 * back (answered after the restart), and a Retry accepted just before a SIGKILL is not lost
 * (the restarted bot tells its member).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGate } from '../support/llm-stand-in/gate.ts';
import { textScript } from '../support/llm-stand-in/script.ts';
import {
  botMessagesIn,
  createWorld,
  startHarness,
  waitForTurn,
  type BotHarness,
} from './support/bot-harness.ts';

describe('claims kept across the bot’s own end', { timeout: 240_000 }, () => {
  let harness: BotHarness<ReturnType<typeof createWorld>>;
  beforeAll(async () => {
    harness = await startHarness({ setup: (discord) => createWorld(discord) });
  }, 120_000);
  afterAll(() => harness.dispose());

  function channel(name: string): string {
    const { discord, world } = harness;
    return discord.createChannel({ guildId: world.guild.id, name }).id;
  }

  it('a mention heard during the shutdown grace is handed back and answered after the restart', async () => {
    const { discord, llm, bot, world } = harness;
    const gate = createGate();
    llm.enqueue({
      steps: [
        { type: 'text', text: 'A reply still being written at SIGTERM.\n\n' },
        { type: 'hold', gate },
        { type: 'text', text: 'Its end.' },
        { type: 'finish', reason: 'stop' },
      ],
    });
    llm.handle(() => textScript('Answered after the restart.'));
    const [busy, late] = [channel('busy'), channel('late')];
    const firstReply = discord.waits.message({ channelId: busy, authorId: discord.botUserId });
    discord.postMessage({
      authorId: world.alice.id,
      channelId: busy,
      content: `<@${discord.botUserId}> a long story please`,
    });
    await firstReply;
    const stopped = bot.stop();
    await bot.waitForLog((line) => line.json?.['msg'] === 'shutting down');
    const mention = discord.postMessage({
      authorId: world.bob.id,
      channelId: late,
      content: `<@${discord.botUserId}> are you there?`,
    });
    await bot.waitForLog(
      (line) =>
        line.json?.['msg'] === 'message handed back' && line.json['messageId'] === mention.id,
    );
    gate.release();
    expect((await stopped).code).toBe(0);
    bot.restart();
    await bot.waitUntilConnected();
    expect((await waitForTurn(bot, mention.id)).json?.['status']).toBe('complete');
    const answers = botMessagesIn(discord, late).filter(
      (message) => message.content === 'Answered after the restart.',
    );
    expect(answers).toHaveLength(1);
  });

  it('a Retry accepted just before a SIGKILL is not lost: the restarted bot tells its member', async () => {
    const { discord, llm, bot, world } = harness;
    const place = channel('retry-kill');
    const gate = createGate();
    llm.enqueue(
      { steps: [{ type: 'fail', kind: 'auth' }] },
      {
        steps: [
          { type: 'text', text: 'The retried answer begins.\n\n' },
          { type: 'hold', gate },
          { type: 'text', text: 'Never sent.' },
          { type: 'finish', reason: 'stop' },
        ],
      },
    );
    const notice = discord.waits.message({
      channelId: place,
      authorId: discord.botUserId,
      where: (message) => (message.components?.length ?? 0) > 0,
    });
    const trigger = discord.postMessage({
      authorId: world.alice.id,
      channelId: place,
      content: `<@${discord.botUserId}> help?`,
    });
    const failure = await notice;
    const retried = discord.waits.message({
      channelId: place,
      authorId: discord.botUserId,
      where: (message) => message.content.startsWith('The retried answer begins.'),
    });
    discord.pressButton({
      userId: world.alice.id,
      messageId: failure.id,
      customId: `retry:${trigger.id}`,
    });
    await retried;
    await bot.kill();
    gate.release();
    llm.handle(() => textScript('Fine.'));
    bot.restart();
    await bot.waitUntilConnected();
    const told = await discord.waits.message({
      channelId: place,
      authorId: discord.botUserId,
      where: (message) =>
        message.message_reference?.message_id === trigger.id &&
        message.content.includes('restarting'),
    });
    expect(told.content).toContain('restarting');
  });

  it('a reply cut by a SIGKILL keeps no live-looking Stop button once the bot is back', async () => {
    const { discord, llm, bot, world } = harness;
    const place = channel('cut-reply');
    const gate = createGate();
    llm.enqueue({
      steps: [
        { type: 'text', text: 'A reply about to be cut by a crash.\n\n' },
        { type: 'hold', gate },
        { type: 'text', text: 'Never sent.' },
        { type: 'finish', reason: 'stop' },
      ],
    });
    const armed = discord.waits.message({
      channelId: place,
      authorId: discord.botUserId,
      where: (message) => (message.components?.length ?? 0) > 0,
    });
    const trigger = discord.postMessage({
      authorId: world.bob.id,
      channelId: place,
      content: `<@${discord.botUserId}> a long story`,
    });
    const cut = await armed;
    await bot.kill();
    gate.release();
    bot.restart();
    await bot.waitUntilConnected();
    // The restarted note comes after the button is taken away.
    await discord.waits.message({
      channelId: place,
      authorId: discord.botUserId,
      where: (message) =>
        message.message_reference?.message_id === trigger.id &&
        message.content.includes('restarting'),
    });
    expect(discord.message(cut.id)?.components ?? []).toEqual([]);
  });
  it('a reply delivered whole just before a SIGKILL is recorded as it stands, and its member is not told it was cut', async () => {
    const { discord, llm, bot, world } = harness;
    const place = channel('delivered-then-killed');
    llm.enqueue(textScript('All of it, delivered.'));
    // The post takes effect but its answer is lost, again and again: the bot is still retrying
    // (its turn's end unwritten) when it is killed, with the whole reply in the channel.
    discord.faults.failAfterWrite({ method: 'POST', route: '/channels/:channelId/messages' });
    const delivered = discord.waits.message({ channelId: place, authorId: discord.botUserId });
    const trigger = discord.postMessage({
      authorId: world.bob.id,
      channelId: place,
      content: `<@${discord.botUserId}> a short one`,
    });
    const reply = await delivered;
    expect(reply.components ?? []).toEqual([]);
    await bot.kill();
    discord.faults.clear();
    llm.handle(() => textScript('Next answer.'));
    bot.restart();
    await bot.waitUntilConnected();
    await bot.waitForLog(
      (line) =>
        line.json?.['msg'] === 'a reply delivered before a restart: recorded as it stands' &&
        line.json['messageId'] === trigger.id,
    );
    const next = discord.postMessage({
      authorId: world.bob.id,
      channelId: place,
      content: `<@${discord.botUserId}> and then?`,
    });
    await waitForTurn(bot, next.id);
    const toTrigger = botMessagesIn(discord, place).filter(
      (message) => message.message_reference?.message_id === trigger.id,
    );
    expect(toTrigger.map((message) => message.content)).toEqual(['All of it, delivered.']);
    // The next turn's model saw the reply as a reply, not as one cut off.
    const seen = JSON.stringify(llm.requests.at(-1)?.body ?? {});
    expect(seen).toContain('All of it, delivered.');
    expect(seen).not.toContain('cut off here');
  });
});
