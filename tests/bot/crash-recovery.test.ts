/**
 * End to end: the bot process is killed mid-stream and restarted on the same data.
 * The interrupted turn is marked failed, the channel is not left locked, the next mention is
 * answered.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recentTurns } from '../../src/db/turn-repository.ts';
import { createGate } from '../support/llm-stand-in/gate.ts';
import { textScript } from '../support/llm-stand-in/script.ts';
import {
  botMessagesIn,
  createWorld,
  startHarness,
  waitForTurn,
  type BotHarness,
} from './support/bot-harness.ts';

describe('a crash mid-stream', () => {
  let harness: BotHarness;
  beforeAll(async () => {
    harness = await startHarness();
  });
  afterAll(() => harness.dispose());

  it('marks the interrupted turn failed at restart and answers the next mention', async () => {
    const { discord, llm, bot } = harness;
    const { channel, alice } = createWorld(discord);
    const gate = createGate();
    llm.enqueue({
      steps: [
        { type: 'text', text: 'This answer will be cut short by a crash.\n\n' },
        { type: 'hold', gate },
        { type: 'text', text: 'Never sent.' },
        { type: 'finish', reason: 'stop' },
      ],
    });
    const firstMessage = discord.waits.message({
      channelId: channel.id,
      authorId: discord.botUserId,
    });
    discord.postMessage({
      authorId: alice.id,
      channelId: channel.id,
      content: `<@${discord.botUserId}> tell me a long story`,
    });
    await firstMessage;

    await bot.kill();
    gate.release();
    const restartNote = discord.waits.message({
      channelId: channel.id,
      authorId: discord.botUserId,
      where: (message) => message.content.startsWith('I was restarting'),
    });
    bot.restart();
    await bot.waitUntilConnected();
    const recovered = await bot.waitForLog(
      /marked turns left streaming by a stopped process as failed/,
    );
    expect(recovered.json?.['turns']).toBe(1);
    // The cut reply is told as a normal event: an info line, no warning with a stack.
    await restartNote;
    const warnings = bot.logs().filter((line) => line.json?.['level'] === 40);
    expect(warnings.filter((line) => line.json?.['msg'] === 'turn failed')).toEqual([]);
    await bot.waitForLog(/a reply was cut off by a restart/);

    llm.enqueue(textScript('I am back!'));
    const next = discord.postMessage({
      authorId: alice.id,
      channelId: channel.id,
      content: `<@${discord.botUserId}> are you back?`,
    });
    const request = await llm.waitForRequest(2);
    await waitForTurn(bot, next.id);
    expect(botMessagesIn(discord, channel.id).at(-1)?.content).toBe('I am back!');
    // The model sees what members saw of the cut reply, marked as cut: not the story asked again.
    const sent = JSON.stringify(request.body);
    expect(sent).toContain('This answer will be cut short by a crash.');
    expect(sent).toContain('[cut off here: the reply was interrupted]');
    expect(sent).not.toContain('Never sent');
    expect(
      botMessagesIn(discord, channel.id)
        .map((message) => message.content)
        .join('\n'),
    ).not.toContain('Never sent');

    expect(await bot.stop()).toEqual({ code: 0, signal: null });
    await harness.withDatabase(async (db) => {
      const turns = await recentTurns(db, channel.id, { limit: 10 });
      const assistant = turns.filter((turn) => turn.role === 'assistant');
      expect(assistant.map((turn) => turn.status)).toEqual(['complete', 'failed']);
      expect(assistant[1]?.content).toBe('This answer will be cut short by a crash.');
      expect(turns.filter((turn) => turn.status === 'streaming')).toEqual([]);
    });
  });
});
