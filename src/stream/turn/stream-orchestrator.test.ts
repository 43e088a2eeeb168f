import { describe, expect, it } from 'vitest';
import { DeliveryError, ProviderError, ToolError } from '../../core/errors.ts';
import type { StreamPart } from '../../core/stream-part.ts';
import { settle } from '../testing/manual-clock.ts';
import { stepEnd, textDeltas } from '../testing/scripted-chat-model.ts';
import { turnFixture } from '../testing/turn-fixture.ts';

const toolCall = (id: string, name: string, input: unknown = { query: 'x' }): StreamPart => ({
  type: 'tool-call',
  id,
  name,
  input,
  inputText: JSON.stringify(input ?? '{'),
});

describe('StreamOrchestrator: a plain reply', () => {
  it('streams paragraphs to the sink, records the turn once at its start and once at its end', async () => {
    const { run, sink, journal, clock } = turnFixture({
      scripts: [
        async function* () {
          await clock.advance(300);
          yield { type: 'reasoning-delta', text: 'The user greets me.' };
          yield* textDeltas('Hello there!\n\nHow can I help you today?', 4);
          await clock.advance(1700);
          yield stepEnd('stop', { inputTokens: 120, outputTokens: 40, cachedInputTokens: 100 });
        },
      ],
    });
    const outcome = await run();
    expect(outcome.status).toBe('complete');
    expect(outcome.content).toBe('Hello there!\n\nHow can I help you today?');
    expect(sink.messages).toEqual(['Hello there!', 'How can I help you today?']);
    expect(sink.calls[0]).toEqual({ type: 'typing', active: true });
    expect(sink.calls.filter((call) => call.type === 'typing').at(-1)).toEqual({
      type: 'typing',
      active: false,
    });
    expect(outcome.messageIds).toEqual(['m1', 'm2']);
    expect(journal.starts).toEqual([
      {
        turnId: 'turn-1',
        scopeId: 'guild-1',
        channelId: 'channel-1',
        triggerMessageId: 'trigger-1',
      },
    ]);
    expect(journal.finishes).toHaveLength(1);
    expect(journal.finishes[0]?.end).toMatchObject({
      content: outcome.content,
      discordMessageIds: ['m1', 'm2'],
      status: 'complete',
    });
    expect(outcome.metrics).toMatchObject({
      timeToFirstTokenMs: 300,
      timeToFirstMessageMs: 300,
      outputTokensPerSecond: 23.5,
      inputTokens: 120,
      outputTokens: 40,
      cachedInputTokens: 100,
      iterations: 1,
      finishReason: 'stop',
      deliveries: 2,
    });
  });

  it('sets reasoning aside: never delivered, kept with its signature in the assistant message', async () => {
    const { run, sink } = turnFixture({
      scripts: [
        [
          { type: 'reasoning-delta', text: 'secret ' },
          { type: 'reasoning-delta', text: 'plan', providerMetadata: { signature: 'sig-1' } },
          ...textDeltas('Answer.', 3),
          stepEnd(),
        ],
      ],
    });
    const outcome = await run();
    expect(sink.messages).toEqual(['Answer.']);
    expect(outcome.messages).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'secret plan', providerMetadata: { signature: 'sig-1' } },
          { type: 'text', text: 'Answer.' },
        ],
      },
    ]);
  });

  it('handles a reply of thousands of deltas in one pass, text intact', async () => {
    const text = Array.from({ length: 300 }, (_, index) => `Sentence ${index} is here.`).join(' ');
    const { run, sink, journal } = turnFixture({ scripts: [[...textDeltas(text, 3), stepEnd()]] });
    const outcome = await run();
    expect(outcome.metrics.textDeltas).toBeGreaterThan(1000);
    expect(outcome.content).toBe(text);
    expect(sink.messages.join(' ')).toBe(text);
    for (const message of sink.messages) expect(message.length).toBeLessThanOrEqual(2000);
    expect(journal.finishes).toHaveLength(1);
  });

  it('grows one message by edits in edit-in-place mode', async () => {
    const { run, sink } = turnFixture({ scripts: [[...textDeltas('One.\n\nTwo.', 2), stepEnd()]] });
    const outcome = await run({ deliveryMode: 'edit' });
    expect(sink.messages).toEqual(['One.\n\nTwo.']);
    expect(sink.calls.filter((call) => call.type === 'seal')).toHaveLength(1);
    expect(outcome.messageIds).toEqual(['m1']);
  });
});

describe('StreamOrchestrator: tools', () => {
  it('runs tool calls, appends the assistant message and the results, and calls the model again', async () => {
    const { run, model, tools, sink, events, clock } = turnFixture({
      tools: {
        search: async (_input, signal) => {
          await clock.sleep(1500, signal);
          return { ok: true, output: 'Sunny, 24 °C' };
        },
      },
      scripts: [
        [
          ...textDeltas('Let me check.', 5),
          {
            ...toolCall('call-1', 'search', { query: 'weather' }),
            providerMetadata: { thoughtSignature: 't1' },
          } as StreamPart,
          stepEnd('tool_calls'),
        ],
        [...textDeltas('It is sunny.', 5), stepEnd()],
      ],
    });
    const running = run();
    await settle();
    await clock.advance(1500);
    const outcome = await running;
    expect(outcome.status).toBe('complete');
    expect(sink.messages).toEqual(['Let me check.', 'It is sunny.']);
    expect(outcome.content).toBe('Let me check.\n\nIt is sunny.');
    expect(tools.calls.map((entry) => entry.call)).toEqual([
      { id: 'call-1', name: 'search', input: { query: 'weather' } },
    ]);
    expect(model.requests[0]?.tools.map((tool) => tool.name)).toEqual(['search']);
    expect(model.requests[1]?.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me check.' },
          {
            type: 'tool-call',
            id: 'call-1',
            name: 'search',
            input: { query: 'weather' },
            providerMetadata: { thoughtSignature: 't1' },
          },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            callId: 'call-1',
            name: 'search',
            output: 'Sunny, 24 °C',
            isError: false,
          },
        ],
      },
    ]);
    expect(events).toEqual([
      { type: 'tool-start', callId: 'call-1', name: 'search', iteration: 1 },
      {
        type: 'tool-end',
        callId: 'call-1',
        name: 'search',
        iteration: 1,
        outcome: 'ok',
        durationMs: 1500,
      },
    ]);
    expect(sink.calls.filter((call) => call.type === 'status')).toEqual([
      { type: 'status', status: '`search`…' },
      { type: 'status', status: undefined },
      { type: 'status', status: undefined },
    ]);
    expect(outcome.metrics).toMatchObject({
      iterations: 2,
      tools: [{ name: 'search', durationMs: 1500, outcome: 'ok' }],
    });
  });

  it('answers invalid JSON arguments and tool failures to the model instead of throwing', async () => {
    const { run, model, tools } = turnFixture({
      tools: {
        search: () => Promise.reject(new ToolError('bad_query', 'The query was empty.')),
        crash: () => Promise.reject(new Error('ECONNRESET at 10.0.0.3')),
      },
      scripts: [
        [
          { type: 'tool-call', id: 'a', name: 'search', input: undefined, inputText: '{"query": ' },
          toolCall('b', 'search'),
          toolCall('c', 'crash'),
          stepEnd('tool_calls'),
        ],
        [...textDeltas('Sorry, no luck.', 5), stepEnd()],
      ],
    });
    const outcome = await run();
    expect(outcome.status).toBe('complete');
    expect(tools.calls).toHaveLength(2);
    const results = model.requests[1]?.messages.at(-1);
    expect(results).toEqual({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          callId: 'a',
          name: 'search',
          output: expect.stringMatching(/not valid JSON/) as unknown,
          isError: true,
        },
        {
          type: 'tool-result',
          callId: 'b',
          name: 'search',
          output: 'The query was empty.',
          isError: true,
        },
        {
          type: 'tool-result',
          callId: 'c',
          name: 'crash',
          output: 'The tool failed unexpectedly.',
          isError: true,
        },
      ],
    });
  });

  it('refuses tools after too many consecutive errors, lets the model answer once more, and stops there', async () => {
    const failing = (): Promise<{ ok: false; error: string }> =>
      Promise.resolve({ ok: false, error: 'down' });
    const { run, model, tools } = turnFixture({
      streamOptions: { maxConsecutiveToolErrors: 2 },
      tools: { search: failing },
      scripts: [
        [toolCall('1', 'search'), stepEnd('tool_calls')],
        [toolCall('2', 'search'), stepEnd('tool_calls')],
        [toolCall('3', 'search'), stepEnd('tool_calls')],
        [toolCall('4', 'search'), stepEnd('tool_calls')],
      ],
    });
    const outcome = await run();
    expect(tools.calls).toHaveLength(2);
    expect(model.requests).toHaveLength(4);
    expect(model.requests[3]?.messages.at(-1)).toMatchObject({
      role: 'tool',
      content: [
        {
          callId: '3',
          isError: true,
          output: expect.stringMatching(/Tool limit reached/) as unknown,
        },
      ],
    });
    expect(outcome.metrics.toolLimitReached).toBe(true);
  });

  it('bounds the loop at maxIterations model calls that may run tools, plus one to answer', async () => {
    const scripts = Array.from({ length: 10 }, (_, index) => [
      toolCall(`c${index}`, 'search'),
      stepEnd('tool_calls'),
    ]);
    scripts[4] = [
      ...textDeltas('Here is what I found.', 4),
      toolCall('c4', 'search'),
      stepEnd('tool_calls'),
    ];
    const { run, model, tools } = turnFixture({
      streamOptions: { maxIterations: 4 },
      tools: { search: () => Promise.resolve({ ok: true, output: 'more' }) },
      scripts,
    });
    const outcome = await run();
    expect(tools.calls).toHaveLength(3);
    expect(model.requests).toHaveLength(5);
    expect(outcome.status).toBe('complete');
    expect(outcome.content).toBe('Here is what I found.');
  });

  it('answers a tool that never returns as timed out, and aborts it', async () => {
    let toolSignal: AbortSignal | undefined;
    const { run, clock } = turnFixture({
      streamOptions: { toolTimeoutMs: 10_000 },
      tools: {
        slow: (_input, signal) => {
          toolSignal = signal;
          return new Promise(() => undefined);
        },
      },
      scripts: [
        [toolCall('1', 'slow'), stepEnd('tool_calls')],
        [...textDeltas('It timed out.', 4), stepEnd()],
      ],
    });
    const running = run();
    await settle();
    await clock.advance(10_000);
    const outcome = await running;
    expect(outcome.metrics.tools).toEqual([
      { name: 'slow', durationMs: 10_000, outcome: 'timeout' },
    ]);
    expect(toolSignal?.aborted).toBe(true);
    expect(outcome.status).toBe('complete');
  });
});

describe('StreamOrchestrator: failures', () => {
  it('ends as failed with the ProviderError of an error part, after delivering what was written', async () => {
    const error = new ProviderError({ kind: 'overloaded', message: '529 overloaded' });
    const { run, sink, journal } = turnFixture({
      scripts: [[...textDeltas('First paragraph.\n\nHalf a sen', 4), { type: 'error', error }]],
    });
    const outcome = await run();
    expect(outcome.status).toBe('failed');
    expect(outcome.error).toBe(error);
    expect(sink.messages).toEqual(['First paragraph.', 'Half a sen']);
    expect(journal.finishes.map((entry) => entry.end.status)).toEqual(['failed']);
  });

  it('ends as failed when the model throws before its first part', async () => {
    const error = new ProviderError({ kind: 'auth', message: '401' });
    const { run, journal } = turnFixture({
      scripts: [
        () => ({
          [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(error) }),
        }),
      ],
    });
    const outcome = await run();
    expect(outcome).toMatchObject({ status: 'failed', error });
    expect(journal.finishes).toHaveLength(1);
  });

  it('wraps an unclassified failure as an unknown ProviderError', async () => {
    const { run } = turnFixture({
      scripts: [
        () => {
          throw new TypeError('adapter bug');
        },
      ],
    });
    const outcome = await run();
    expect(outcome.error).toBeInstanceOf(ProviderError);
    expect(outcome.error).toMatchObject({ kind: 'unknown', message: 'adapter bug' });
  });

  it('turns an empty reply into a failure the member hears about, never an empty message', async () => {
    const { run, sink } = turnFixture({ scripts: [[{ type: 'text-delta', text: '' }, stepEnd()]] });
    const outcome = await run();
    expect(sink.contentCalls()).toEqual([]);
    expect(outcome.status).toBe('failed');
    expect(outcome.error).toMatchObject({ kind: 'model', retryable: true });
    const filtered = turnFixture({ scripts: [[stepEnd('content_filter')]] });
    expect((await filtered.run()).error).toMatchObject({
      kind: 'content_filter',
      retryable: false,
    });
  });

  it('fails the turn when delivery fails, and still records it once', async () => {
    const { run, sink, journal } = turnFixture({
      scripts: [[...textDeltas('Hello.', 3), stepEnd()]],
    });
    sink.failFlushWith(new DeliveryError('forbidden', 'missing permission'));
    const outcome = await run();
    expect(outcome.status).toBe('failed');
    expect(outcome.error).toBeInstanceOf(DeliveryError);
    expect(journal.finishes).toHaveLength(1);
  });

  it('records a turn whose writes failed for good as failed, with the reason and the messages it spans', async () => {
    const { run, sink, journal } = turnFixture({
      scripts: [[...textDeltas('One.\n\nTwo.', 3), stepEnd()]],
    });
    const failure = new DeliveryError('write_failed', 'part of the reply could not be written');
    sink.failDeliveryWith(failure);
    const outcome = await run();
    expect(outcome.status).toBe('failed');
    expect(outcome.error).toBe(failure);
    expect(outcome.messageIds).toEqual(['m1', 'm2']);
    expect(journal.finishes.map((entry) => entry.end)).toEqual([
      expect.objectContaining({ status: 'failed', discordMessageIds: ['m1', 'm2'] }),
    ]);
  });

  it('records the turn even when the sink never finishes flushing', async () => {
    const { run, sink, journal, clock } = turnFixture({
      streamOptions: { flushTimeoutMs: 5000 },
      scripts: [[...textDeltas('Hello.', 3), stepEnd()]],
    });
    sink.holdFlushUntil(new Promise(() => undefined));
    const running = run();
    await settle();
    await clock.advance(5000);
    const outcome = await running;
    expect(outcome.status).toBe('failed');
    expect(journal.finishes).toHaveLength(1);
  });

  it('ends a turn broken by a bug below it as failed, still recorded once', async () => {
    const { run, sink, journal } = turnFixture({
      scripts: [[...textDeltas('Hi.\n\nMore.', 4), stepEnd()]],
    });
    sink.pushMessage = () => {
      throw new Error('sink bug');
    };
    const outcome = await run();
    expect(outcome).toMatchObject({ status: 'failed', error: { code: 'turn_internal' } });
    expect(journal.finishes.map((entry) => entry.end.status)).toEqual(['failed']);
  });

  it('posts nothing and cuts the model call short when the turn cannot be recorded', async () => {
    const { run, model, sink, journal } = turnFixture({
      scripts: [[...textDeltas('Hello there.', 4), stepEnd()]],
    });
    journal.failStartWith(new Error('database down'));
    const outcome = await run();
    expect(outcome).toMatchObject({ status: 'failed', journalFailed: true, messageIds: [] });
    expect(model.requests.length).toBeLessThanOrEqual(1);
    expect(sink.messages).toEqual([]);
    expect(sink.calls.filter((call) => call.type === 'flush')).toEqual([]);
    expect(journal.finishes).toEqual([]);
  });

  it('calls the model while the start is recorded, and posts nothing before it is', async () => {
    const { run, model, sink, journal } = turnFixture({
      scripts: [[...textDeltas('First paragraph.\n\nSecond one.', 6), stepEnd()]],
    });
    const start = journal.holdStart();
    const running = run();
    await settle();
    // The model was asked and answered in full; its reply waits for the start's write.
    expect(model.requests).toHaveLength(1);
    expect(sink.messages).toEqual([]);
    start.release();
    const outcome = await running;
    expect(outcome).toMatchObject({ status: 'complete', journalFailed: false });
    expect(sink.messages.join('\n\n')).toBe('First paragraph.\n\nSecond one.');
    expect(journal.finishes).toHaveLength(1);
  });

  it('runs no tool for a turn whose start could not be recorded', async () => {
    const { run, tools, sink, journal } = turnFixture({
      tools: { search: () => Promise.resolve({ ok: true, output: 'found' }) },
      scripts: [
        [toolCall('call-1', 'search'), stepEnd('tool_calls')],
        [...textDeltas('Found it.', 4), stepEnd()],
      ],
    });
    const start = journal.holdStart();
    const running = run();
    await settle();
    expect(tools.calls).toEqual([]);
    start.fail(new Error('database down'));
    const outcome = await running;
    expect(outcome).toMatchObject({ status: 'failed', journalFailed: true });
    expect(tools.calls).toEqual([]);
    expect(sink.messages).toEqual([]);
  });

  it('reports a failed final write without losing the outcome', async () => {
    const { run, journal } = turnFixture({ scripts: [[...textDeltas('Hi.', 3), stepEnd()]] });
    journal.failFinishWith(new Error('database down'));
    const outcome = await run();
    expect(outcome).toMatchObject({ status: 'complete', journalFailed: true, content: 'Hi.' });
  });
});
