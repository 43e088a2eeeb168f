/**
 * End to end: during a reply, the member's "@bot how do I cancel my order?" is a
 * question to answer, not a stop; the "@bot stop please" right after it (the mention as
 * discord.js cleans it) is the stop. The gateway delivers them in order, so the stop being
 * the one acknowledged proves the question before it was not taken for one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGate } from '../support/llm-stand-in/gate.ts';
import { textScript } from '../support/llm-stand-in/script.ts';
import { createWorld, startHarness, waitForTurn, type BotHarness } from './support/bot-harness.ts';

describe('a stop or a question, end to end', { timeout: 60_000 }, () => {
  let harness: BotHarness | undefined;
  beforeAll(async () => {
    harness = await startHarness();
  }, 120_000);
  afterAll(() => harness?.dispose());

  it('answers a question that contains a stop word, and stops on the stop addressed to the bot', async () => {
    if (harness === undefined) throw new Error('the bot did not start');
    const { discord, llm, bot } = harness;
    const { channel, alice } = createWorld(discord, 'Orders');
    const mention = (text: string) =>
      discord.postMessage({
        authorId: alice.id,
        channelId: channel.id,
        content: `<@${discord.botUserId}> ${text}`,
      });
    const held = createGate();
    llm.enqueue({
      steps: [
        { type: 'text', text: 'Let me tell you everything about refunds.\n\n' },
        { type: 'hold', gate: held },
        { type: 'text', text: 'This part must never appear.' },
        { type: 'finish', reason: 'stop' },
      ],
    });
    llm.enqueue(textScript('Okay, I will stop there.'));
    llm.enqueue(textScript('You can cancel it from your account page.'));
    const firstMessage = discord.waits.message({
      channelId: channel.id,
      authorId: discord.botUserId,
    });
    const before = llm.requests.length;
    const refunds = mention('tell me about refunds');
    await firstMessage;

    const question = mention('how do I cancel my order?');
    mention('stop please');
    const finished = await waitForTurn(bot, refunds.id);
    held.release();
    expect(finished.json?.['status']).toBe('stopped');

    const acknowledgement = await llm.waitForRequest(before + 2);
    // The stop message is quoted as the member wrote it (the mention as discord.js cleans it).
    expect(acknowledgement.systemText).toMatch(/\("(@\S+ )?stop please"\)/);
    expect(acknowledgement.systemText).not.toContain('cancel my order');
    const answer = await llm.waitForRequest(before + 3);
    expect(JSON.stringify(answer.body)).toContain('how do I cancel my order?');
    await waitForTurn(bot, question.id);
  });
});
