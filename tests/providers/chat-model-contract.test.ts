/**
 * The provider contract, run identically against the three real adapters. Each talks through
 * its real SDK to the LLM stand-in, which answers in that vendor's wire format.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProviderErrorKind } from '../../src/core/errors.ts';
import type { ChatModel } from '../../src/core/provider.ts';
import type { StreamPart } from '../../src/core/stream-part.ts';
import { createGate } from '../support/llm-stand-in/gate.ts';
import { LlmStandIn } from '../support/llm-stand-in/llm-stand-in.ts';
import { textScript, type ScriptFailureKind } from '../support/llm-stand-in/script.ts';
import {
  ADAPTERS,
  collect,
  reasoningOf,
  textOf,
  thrownProviderError,
  userRequest,
} from './support/adapters.ts';

let standIn: LlmStandIn;
beforeAll(async () => {
  standIn = await LlmStandIn.start();
});
afterAll(async () => {
  await standIn.close();
});

const stepEnds = (parts: readonly StreamPart[]) => parts.filter((part) => part.type === 'step-end');

describe.each(ADAPTERS)('the $vendor adapter', ({ vendor, model: modelId, create }) => {
  let model: ChatModel;
  beforeAll(() => {
    model = create(standIn);
  });

  it('streams text deltas in order and ends with exactly one step-end', async () => {
    standIn.enqueue(textScript('Hello', ', ', 'friend!'));
    const { parts, thrown } = await collect(model, userRequest(modelId));
    expect(thrown).toBeUndefined();
    expect(parts.map((part) => part.type)).toEqual([
      'text-delta',
      'text-delta',
      'text-delta',
      'step-end',
    ]);
    expect(textOf(parts)).toBe('Hello, friend!');
    expect(parts.at(-1)).toMatchObject({ type: 'step-end', finishReason: 'stop' });
  });

  it('sends the model, key, system instructions and the user text the vendor way', async () => {
    standIn.enqueue(textScript('ok'));
    await collect(model, userRequest(modelId, 'What is the capital of France?'));
    const request = standIn.requests.at(-1);
    expect(request).toMatchObject({
      vendor,
      model: modelId,
      systemText: 'You are Tomo, a friendly companion.',
      lastUserText: 'What is the capital of France?',
    });
    expect(request?.apiKey).toMatch(/test/);
  });

  it('keeps text split mid-word and mid-character intact, even read one byte at a time', async () => {
    // "Grüße 👋😀": ü and ß are two bytes, the emoji four; the last emoji is split between two
    // deltas as UTF-16 surrogate halves.
    standIn.enqueue({
      steps: [
        { type: 'text', text: 'Gr' },
        { type: 'text', text: 'üß' },
        { type: 'text', text: 'e 👋' },
        { type: 'text', text: '\ud83d' },
        { type: 'text', text: '\ude00' },
        { type: 'finish', reason: 'stop' },
      ],
      chunkBytes: 1,
    });
    const { parts, thrown } = await collect(model, userRequest(modelId));
    expect(thrown).toBeUndefined();
    expect(textOf(parts)).toBe('Grüße 👋😀');
    expect(stepEnds(parts)).toHaveLength(1);
  });

  it('reports reasoning as reasoning deltas, never as text', async () => {
    standIn.enqueue({
      steps: [
        { type: 'reasoning', text: 'The user greets me; ' },
        { type: 'reasoning', text: 'greet back.' },
        { type: 'reasoning-end', signature: 'sig-abc' },
        { type: 'text', text: 'Hi!' },
        { type: 'finish', reason: 'stop' },
      ],
    });
    const { parts } = await collect(model, userRequest(modelId));
    expect(reasoningOf(parts)).toBe('The user greets me; greet back.');
    expect(textOf(parts)).toBe('Hi!');
    const firstText = parts.findIndex((part) => part.type === 'text-delta');
    const lastReasoning = parts.findLastIndex((part) => part.type === 'reasoning-delta');
    expect(lastReasoning).toBeLessThan(firstText);
  });

  it('assembles a tool call from fragmented arguments', async () => {
    const argumentsText = JSON.stringify({ city: 'Zürich', days: 3, units: 'metric' });
    standIn.enqueue({
      steps: [
        {
          type: 'tool-calls',
          calls: [
            { id: 'call_weather_1', name: 'get_weather', arguments: argumentsText, fragments: 5 },
          ],
        },
        { type: 'finish', reason: 'tool_calls' },
      ],
    });
    const { parts } = await collect(model, userRequest(modelId));
    expect(parts).toEqual([
      {
        type: 'tool-call',
        id: 'call_weather_1',
        name: 'get_weather',
        input: { city: 'Zürich', days: 3, units: 'metric' },
        inputText: expect.any(String) as string,
      },
      expect.objectContaining({ type: 'step-end', finishReason: 'tool_calls' }),
    ]);
    expect(JSON.parse((parts[0] as { inputText: string }).inputText)).toEqual(
      JSON.parse(argumentsText),
    );
  });

  it('assembles several parallel tool calls, in order, after the text before them', async () => {
    standIn.enqueue({
      steps: [
        { type: 'text', text: 'Checking both.' },
        {
          type: 'tool-calls',
          calls: [
            { id: 'call_a', name: 'get_weather', arguments: '{"city":"Oslo"}', fragments: 4 },
            {
              id: 'call_b',
              name: 'get_time',
              arguments: '{"zone":"Europe/Oslo","format":"24h"}',
              fragments: 6,
            },
            { id: 'call_c', name: 'list_reminders', arguments: '{}' },
          ],
        },
        { type: 'finish', reason: 'tool_calls' },
      ],
    });
    const { parts } = await collect(model, userRequest(modelId));
    const calls = parts.filter((part) => part.type === 'tool-call');
    expect(calls.map((call) => [call.id, call.name, call.input])).toEqual([
      ['call_a', 'get_weather', { city: 'Oslo' }],
      ['call_b', 'get_time', { zone: 'Europe/Oslo', format: '24h' }],
      ['call_c', 'list_reminders', {}],
    ]);
    expect(parts[0]).toEqual({ type: 'text-delta', text: 'Checking both.' });
    expect(parts.at(-1)).toMatchObject({ type: 'step-end', finishReason: 'tool_calls' });
  });

  it('reports usage with cached input tokens', async () => {
    standIn.enqueue({
      steps: [
        { type: 'text', text: 'Sure.' },
        { type: 'usage', inputTokens: 1200, outputTokens: 42, cachedInputTokens: 1024 },
        { type: 'finish', reason: 'stop' },
      ],
    });
    const { parts } = await collect(model, userRequest(modelId));
    expect(parts.at(-1)).toEqual({
      type: 'step-end',
      finishReason: 'stop',
      usage: { inputTokens: 1200, outputTokens: 42, cachedInputTokens: 1024 },
    });
  });

  it.each([
    ['stop', 'stop'],
    ['length', 'length'],
    ['content_filter', 'content_filter'],
  ] as const)('maps the finish reason %s after some text to %s', async (reason, expected) => {
    standIn.enqueue({
      steps: [
        { type: 'text', text: 'Partial answer' },
        { type: 'finish', reason },
      ],
    });
    const { parts } = await collect(model, userRequest(modelId));
    expect(parts.at(-1)).toMatchObject({ type: 'step-end', finishReason: expected });
  });

  const errorClasses: Array<
    [Exclude<ScriptFailureKind, 'content_filter'>, ProviderErrorKind, boolean]
  > = [
    ['auth', 'auth', false],
    ['rate_limit', 'rate_limit', true],
    ['quota', 'quota', false],
    ['overloaded', 'overloaded', true],
    ['timeout', 'timeout', true],
    ['model', 'model', false],
    ['context_overflow', 'context_overflow', false],
    ['bad_request', 'bad_request', false],
  ];
  it.each(errorClasses)(
    'throws a %s failure from the vendor-faithful body as kind %s before any part',
    async (failure, kind, retryable) => {
      standIn.enqueue({ steps: [{ type: 'fail', kind: failure }] });
      const collected = await collect(model, userRequest(modelId));
      expect(collected.parts).toEqual([]);
      const error = thrownProviderError(collected);
      expect(error).toMatchObject({ kind, retryable, provider: vendor });
    },
  );

  it('carries the retry-after delay of a rate limit', async () => {
    standIn.enqueue({ steps: [{ type: 'fail', kind: 'rate_limit', retryAfterSeconds: 7 }] });
    const error = thrownProviderError(await collect(model, userRequest(modelId)));
    expect(error).toMatchObject({ kind: 'rate_limit', retryable: true, retryAfterMs: 7000 });
  });

  it('throws content_filter when the vendor blocks the request before any output', async () => {
    standIn.enqueue({ steps: [{ type: 'fail', kind: 'content_filter' }] });
    const error = thrownProviderError(await collect(model, userRequest(modelId)));
    expect(error).toMatchObject({ kind: 'content_filter', retryable: false });
  });

  it('yields a network error part when the connection drops mid-stream, then ends', async () => {
    standIn.enqueue({ steps: [{ type: 'text', text: 'Once upon a ' }, { type: 'drop' }] });
    const { parts, thrown } = await collect(model, userRequest(modelId));
    expect(thrown).toBeUndefined();
    expect(parts).toEqual([
      { type: 'text-delta', text: 'Once upon a ' },
      {
        type: 'error',
        error: expect.objectContaining({ kind: 'network', retryable: true }) as unknown,
      },
    ]);
  });

  it('yields a network error part for a malformed event, then ends', async () => {
    standIn.enqueue({
      steps: [
        { type: 'text', text: 'Hello' },
        { type: 'malformed' },
        { type: 'text', text: 'never seen' },
      ],
    });
    const { parts } = await collect(model, userRequest(modelId));
    expect(parts.map((part) => part.type)).toEqual(['text-delta', 'error']);
    expect(parts[1]).toMatchObject({ error: { kind: 'network' } });
  });

  it('yields the vendor error event sent mid-stream as an error part', async () => {
    standIn.enqueue({
      steps: [
        { type: 'text', text: 'Hel' },
        { type: 'fail', kind: 'overloaded' },
      ],
    });
    const { parts } = await collect(model, userRequest(modelId));
    expect(parts.map((part) => part.type)).toEqual(['text-delta', 'error']);
    expect(parts[1]).toMatchObject({ error: { kind: 'overloaded', retryable: true } });
  });

  it('treats a stream that ends without finishing as a network failure', async () => {
    standIn.enqueue({ steps: [{ type: 'text', text: 'Cut sho' }] });
    const { parts } = await collect(model, userRequest(modelId));
    expect(parts.map((part) => part.type)).toEqual(['text-delta', 'error']);
    expect(parts[1]).toMatchObject({ error: { kind: 'network' } });
  });

  it('ends on an abort while the stream is held open, and closes the HTTP stream', async () => {
    const gate = createGate();
    standIn.enqueue({
      steps: [
        { type: 'text', text: 'Thinking about it' },
        { type: 'hold', gate },
      ],
    });
    const controller = new AbortController();
    const parts: StreamPart[] = [];
    for await (const part of model.stream(userRequest(modelId), controller.signal)) {
      parts.push(part);
      if (parts.length === 1) {
        // Abort from outside the loop, as a stop command would, while the stream is held open.
        setImmediate(() => controller.abort());
      }
    }
    // The gate is still closed: only the abort can have ended the loop (no wall-clock bound —
    // a busy machine may take its time, a stream that ignored the abort would never end).
    expect(gate.released).toBe(false);
    expect(parts).toEqual([{ type: 'text-delta', text: 'Thinking about it' }]);
    const request = standIn.requests.at(-1);
    await request?.settled;
    expect(request?.clientClosed).toBe(true);
    gate.release();
  });

  it('ends quietly when aborted while waiting for the first event', async () => {
    const gate = createGate();
    standIn.enqueue({
      steps: [
        { type: 'hold', gate },
        { type: 'text', text: 'too late' },
      ],
    });
    const controller = new AbortController();
    const arrived = standIn.waitForRequest();
    const result = collect(model, userRequest(modelId), controller.signal);
    const request = await arrived;
    controller.abort();
    expect(await result).toEqual({ parts: [], thrown: undefined });
    await request.settled;
    expect(request.clientClosed).toBe(true);
    gate.release();
  });

  it('sends nothing when the signal is already aborted', async () => {
    const before = standIn.requests.length;
    const { parts, thrown } = await collect(model, userRequest(modelId), AbortSignal.abort());
    expect({ parts, thrown }).toEqual({ parts: [], thrown: undefined });
    expect(standIn.requests.length).toBe(before);
  });

  it('closes the HTTP stream when the consumer stops iterating early', async () => {
    const gate = createGate();
    standIn.enqueue({
      steps: [
        { type: 'text', text: 'First' },
        { type: 'hold', gate },
      ],
    });
    for await (const part of model.stream(userRequest(modelId), new AbortController().signal)) {
      expect(part.type).toBe('text-delta');
      break;
    }
    const request = standIn.requests.at(-1);
    await request?.settled;
    expect(request?.clientClosed).toBe(true);
    gate.release();
  });
});
