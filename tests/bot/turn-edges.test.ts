/**
 * The edges of a turn, end to end through the real bot process: every model call counts
 * tokens (a stopped turn, its acknowledgement, a failed turn — the stand-in reports no usage
 * for them); the context-overflow retry reaches the attempt without history while reusing the
 * tool round it already ran instead of running the tool again; a history fetch Discord refuses
 * or answers with nonsense does not sink the turn.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGate } from '../support/llm-stand-in/gate.ts';
import {
  asArray,
  asObject,
  type RecordedRequest,
} from '../support/llm-stand-in/recorded-request.ts';
import { textScript, type Script } from '../support/llm-stand-in/script.ts';
import {
  botMessagesIn,
  createWorld,
  startHarness,
  waitForTurn,
  type BotHarness,
} from './support/bot-harness.ts';

/** A reply streamed without a usage report, as a stopped or cut stream ends. */
function unreported(...texts: string[]): Script {
  return {
    steps: [
      ...texts.map((text) => ({ type: 'text' as const, text })),
      { type: 'finish', reason: 'stop' },
    ],
  };
}

function hasToolResult(request: RecordedRequest): boolean {
  return asArray(asObject(request.body)['messages']).some(
    (message) => asObject(message)['role'] === 'tool',
  );
}

function historyLinesIn(request: RecordedRequest): number {
  return JSON.stringify(request.body).match(/history line \d/g)?.length ?? 0;
}

describe('model calls and their cost, end to end', () => {
  let harness: BotHarness;
  beforeAll(async () => {
    harness = await startHarness();
  });
  afterAll(() => harness?.dispose());

  it('counts the tokens of a stopped turn and of its acknowledgement', async () => {
    const { discord, llm, bot } = harness;
    const { channel, alice } = createWorld(discord, 'Stopped');
    const gate = createGate();
    llm.enqueue({
      steps: [
        { type: 'text', text: 'Pasta starts with water.\n\n' },
        { type: 'hold', gate },
        { type: 'text', text: 'Then salt.' },
        { type: 'finish', reason: 'stop' },
      ],
    });
    llm.enqueue(unreported('Oh, sorry! I will stop there.'));
    const firstMessage = discord.waits.message({
      channelId: channel.id,
      authorId: discord.botUserId,
    });
    const trigger = discord.postMessage({
      authorId: alice.id,
      channelId: channel.id,
      content: `<@${discord.botUserId}> tell me all about pasta`,
    });
    await firstMessage;
    discord.postMessage({ authorId: alice.id, channelId: channel.id, content: 'stop' });
    const acknowledged = await bot.waitForLog(
      (line) =>
        line.json?.['msg'] === 'acknowledged a stop' && line.json['messageId'] === trigger.id,
      { timeoutMs: 60_000 },
    );
    gate.release();
    const stopped = bot
      .logs()
      .find(
        (line) => line.json?.['msg'] === 'turn finished' && line.json['messageId'] === trigger.id,
      );
    expect(stopped?.json).toMatchObject({ status: 'stopped', estimatedUsageCalls: 1 });
    expect(stopped?.json?.['inputTokens']).toBeGreaterThan(0);
    expect(stopped?.json?.['outputTokens']).toBeGreaterThan(0);
    expect(acknowledged.json?.['inputTokens']).toBeGreaterThan(0);
    expect(acknowledged.json?.['outputTokens']).toBeGreaterThan(0);
  });

  it('counts the tokens of a turn that failed mid-reply', async () => {
    const { discord, llm, bot } = harness;
    const { channel, alice } = createWorld(discord, 'Failed');
    llm.enqueue({
      steps: [
        { type: 'text', text: 'Half of an answer.\n\n' },
        { type: 'fail', kind: 'overloaded' },
      ],
    });
    const trigger = discord.postMessage({
      authorId: alice.id,
      channelId: channel.id,
      content: `<@${discord.botUserId}> explain tides`,
    });
    const finished = await waitForTurn(bot, trigger.id, 60_000);
    expect(finished.json).toMatchObject({ status: 'failed', estimatedUsageCalls: 1 });
    expect(finished.json?.['inputTokens']).toBeGreaterThan(0);
  });

  it('retries a context overflow down to no history, reusing the tool round it already ran', async () => {
    const { discord, llm, bot } = harness;
    const { channel, alice, bob } = createWorld(discord, 'Overflow');
    for (let line = 1; line <= 4; line += 1) {
      const posted = discord.waits.message({ channelId: channel.id, authorId: bob.id });
      discord.postMessage({
        authorId: bob.id,
        channelId: channel.id,
        content: `history line ${line}`,
      });
      await posted;
    }
    const served = { toolCalls: 0, overflows: 0 };
    const seen: RecordedRequest[] = [];
    llm.handle((request): Script => {
      seen.push(request);
      if (!hasToolResult(request)) {
        served.toolCalls += 1;
        const fact = '{"scope":"user","fact":"Alice keeps bees"}';
        return {
          steps: [
            {
              type: 'tool-calls',
              calls: [{ id: 'call_1', name: 'remember_fact', arguments: fact }],
            },
            { type: 'finish', reason: 'tool_calls' },
          ],
        };
      }
      if (served.overflows < 3) {
        served.overflows += 1;
        return { steps: [{ type: 'fail', kind: 'context_overflow' }] };
      }
      return unreported('Noted: you keep bees.');
    });
    try {
      const trigger = discord.postMessage({
        authorId: alice.id,
        channelId: channel.id,
        content: `<@${discord.botUserId}> remember that I keep bees`,
      });
      const finished = await waitForTurn(bot, trigger.id, 60_000);
      expect(finished.json?.['status']).toBe('complete');
    } finally {
      llm.handle(undefined);
    }
    expect(served).toEqual({ toolCalls: 1, overflows: 3 });
    // The first call and its overflowed follow-up saw all four lines; then 2, 1 and none.
    expect(seen.map(historyLinesIn)).toEqual([4, 4, 2, 1, 0]);
    expect(seen.slice(1).every(hasToolResult)).toBe(true);
    const texts = botMessagesIn(discord, channel.id).map((message) => message.content);
    expect(texts).toEqual(['Noted: you keep bees.']);
  });

  it.each([
    { name: 'refused (403 Missing Access)', arm: 'refuse' as const },
    { name: 'malformed (an object for the list)', arm: 'malform' as const },
  ])('answers from what it has when the history fetch is $name', async ({ name, arm }) => {
    const { discord, llm, bot } = harness;
    const { channel, alice } = createWorld(discord, `History ${arm}`);
    const route = `/channels/${channel.id}/messages`;
    if (arm === 'refuse') discord.faults.failRoute({ method: 'GET', route, status: 403 });
    else discord.faults.malformRoute({ method: 'GET', route, body: { messages: name } });
    llm.enqueue(textScript('Hello anyway!'));
    const trigger = discord.postMessage({
      authorId: alice.id,
      channelId: channel.id,
      content: `<@${discord.botUserId}> are you there?`,
    });
    const finished = await waitForTurn(bot, trigger.id, 60_000);
    expect(finished.json?.['status']).toBe('complete');
    expect(llm.requests.at(-1)?.lastUserText).toContain('are you there?');
    const texts = botMessagesIn(discord, channel.id).map((message) => message.content);
    expect(texts).toEqual(['Hello anyway!']);
    const fetches = discord.requests({ method: 'GET', route: route });
    expect(fetches.length).toBeGreaterThan(0);
    const logged = bot
      .logs()
      .filter(
        (line) =>
          line.json?.['msg'] ===
            'could not read the channel history; answering from what is known' &&
          line.json['channelId'] === channel.id,
      );
    expect(logged).toHaveLength(1);
  });
});
