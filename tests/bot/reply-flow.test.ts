/**
 * End to end through the real bot process, the loopback Discord and the LLM stand-in:
 * a streamed reply in several messages, a stop, and a tool call mid-reply.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGate } from '../support/llm-stand-in/gate.ts';
import type { Script, ScriptStep } from '../support/llm-stand-in/script.ts';
import {
  botMessagesIn,
  botPings,
  botWrites,
  createWorld,
  startHarness,
  waitForTurn,
  type BotHarness,
} from './support/bot-harness.ts';

function deltas(text: string, size: number): ScriptStep[] {
  const steps: ScriptStep[] = [];
  for (let index = 0; index < text.length; index += size) {
    steps.push({ type: 'text', text: text.slice(index, index + size) });
  }
  return steps;
}

function streamed(text: string, size = 40): Script {
  return {
    steps: [
      ...deltas(text, size),
      { type: 'usage', inputTokens: 50, outputTokens: 700 },
      { type: 'finish', reason: 'stop' },
    ],
  };
}

describe('a reply, end to end', () => {
  let harness: BotHarness;
  beforeAll(async () => {
    harness = await startHarness();
  });
  afterAll(() => harness.dispose());

  it('streams a long reply in several messages: a reply first, valid fences, no pings', async () => {
    const { discord, llm, bot } = harness;
    const { channel, alice } = createWorld(discord);
    const code = Array.from(
      { length: 80 },
      (_, index) => `console.log("line ${index} of the example");`,
    ).join('\n');
    expect(code.length).toBeGreaterThan(2800);
    const answer = [
      'Here is the program you asked for.',
      `\`\`\`ts\n${code}\n\`\`\``,
      'That is all! @everyone should try it, and <@&123456789012345678> too.',
    ].join('\n\n');
    llm.enqueue(streamed(answer, 37));
    const trigger = discord.postMessage({
      authorId: alice.id,
      channelId: channel.id,
      content: `<@${discord.botUserId}> write me a long program`,
    });
    await waitForTurn(bot, trigger.id);

    const messages = botMessagesIn(discord, channel.id);
    expect(messages.length).toBeGreaterThanOrEqual(3);
    expect(messages[0]?.message_reference?.message_id).toBe(trigger.id);
    for (const message of messages) {
      expect(message.content.length).toBeLessThanOrEqual(2000);
      expect(message.content.trim()).not.toBe('');
      expect((message.content.match(/```/g) ?? []).length % 2).toBe(0);
    }
    const shownCode = messages
      .map((message) => message.content)
      .join('\n')
      .match(/```ts\n([\s\S]*?)\n```/g)
      ?.map((block) => block.replace(/^```ts\n/, '').replace(/\n```$/, ''))
      .join('\n');
    expect(shownCode).toBe(code);
    const writes = botWrites(discord, channel.id);
    expect(writes.length).toBeGreaterThan(0);
    for (const write of writes)
      expect((write.body as Record<string, unknown>)['allowed_mentions']).toBeDefined();
    expect(botPings(discord)).toEqual([]);
    expect(discord.requests({ status: 429 })).toEqual([]);
  });

  it('stops when the requester says stop: the stream closes fast, nothing more is sent, an acknowledgement follows', async () => {
    const { discord, llm, bot } = harness;
    const { channel, alice, bob } = createWorld(discord, 'Stops');
    const gate = createGate();
    llm.enqueue({
      steps: [
        ...deltas('Pasta is a wonderful subject. First, you boil the water.\n\nThen ', 12),
        { type: 'hold', gate },
        ...deltas('you add the salt and lots more text that must never appear.', 12),
        { type: 'finish', reason: 'stop' },
      ],
    });
    llm.enqueue(streamed('Oh, sorry! I will stop there.'));
    const firstMessage = discord.waits.message({
      channelId: channel.id,
      authorId: discord.botUserId,
    });
    const trigger = discord.postMessage({
      authorId: alice.id,
      channelId: channel.id,
      content: `<@${discord.botUserId}> tell me all about pasta`,
    });
    const request = await llm.waitForRequest(llm.requests.length + 1);
    await firstMessage;

    // Someone else's "wait, what?" stops nothing.
    discord.postMessage({ authorId: bob.id, channelId: channel.id, content: 'wait, what?' });
    // The requester's "wait, what about X?" to someone else does not either.
    discord.postMessage({
      authorId: alice.id,
      channelId: channel.id,
      content: 'wait, what about dinner bob?',
    });
    const stop = discord.postMessage({
      authorId: alice.id,
      channelId: channel.id,
      content: 'stop',
    });
    await request.settled;
    // The stream still had most of its deltas to send: a client that hung up was stopped (how
    // fast is the machine's business; a stream that ran out would end with the server).
    expect(request.clientClosed).toBe(true);
    gate.release();

    await bot.waitForLog(
      (line) =>
        line.json?.['msg'] === 'acknowledged a stop' && line.json['messageId'] === trigger.id,
      { timeoutMs: 15_000 },
    );
    const texts = botMessagesIn(discord, channel.id).map((message) => message.content);
    expect(texts.join('\n')).not.toContain('must never appear');
    expect(texts.at(-1)).toBe('Oh, sorry! I will stop there.');
    const acknowledgement = botMessagesIn(discord, channel.id).at(-1);
    expect(acknowledgement?.message_reference?.message_id).toBe(stop.id);
    const stopped = bot
      .logs()
      .find(
        (line) => line.json?.['msg'] === 'turn finished' && line.json['messageId'] === trigger.id,
      );
    expect(stopped?.json?.['status']).toBe('stopped');
    const ackRequest = llm.requests.at(-1);
    expect(ackRequest?.systemText).toContain('asked you to stop');
    expect(botPings(discord)).toEqual([]);
  });

  it('calls the memory tool mid-reply, shows and clears the tool status, then answers', async () => {
    const { discord, llm, bot } = harness;
    const { channel, alice } = createWorld(discord, 'Memories');
    const gate = createGate();
    llm.enqueue({
      steps: [
        { type: 'text', text: 'Let me remember that.' },
        {
          type: 'tool-calls',
          calls: [
            {
              id: 'call_1',
              name: 'remember_fact',
              arguments: '{"scope":"user","fact":"Alice loves artisan pizza"}',
            },
          ],
        },
        { type: 'finish', reason: 'tool_calls' },
      ],
    });
    llm.enqueue({
      steps: [
        { type: 'hold', gate },
        ...deltas('Noted: you love artisan pizza!', 10),
        { type: 'finish', reason: 'stop' },
      ],
    });
    const status = discord.waits.message({
      channelId: channel.id,
      authorId: discord.botUserId,
      where: (message) => message.content.includes('remember_fact'),
    });
    const trigger = discord.postMessage({
      authorId: alice.id,
      channelId: channel.id,
      content: `<@${discord.botUserId}> remember that I love artisan pizza`,
    });
    const statusMessage = await status;
    const statusGone = discord.waits.messageDelete({
      channelId: channel.id,
      messageId: statusMessage.id,
    });
    gate.release();
    await statusGone;
    await waitForTurn(bot, trigger.id);

    const toolRequest = llm.requests.at(-1);
    const body = toolRequest?.body as { messages: Array<{ role: string; content: unknown }> };
    const toolMessage = body.messages.find((message) => message.role === 'tool');
    expect(JSON.stringify(toolMessage)).toMatch(/remember/i);
    const texts = botMessagesIn(discord, channel.id).map((message) => message.content);
    expect(texts).toEqual(['Let me remember that.', 'Noted: you love artisan pizza!']);
    expect(botPings(discord)).toEqual([]);
  });
});
