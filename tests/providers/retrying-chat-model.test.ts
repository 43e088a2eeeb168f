import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderError, type ProviderErrorKind } from '../../src/core/errors.ts';
import type { StreamPart } from '../../src/core/stream-part.ts';
import { RetryingChatModel } from '../../src/providers/retrying-chat-model.ts';
import { LlmStandIn } from '../support/llm-stand-in/llm-stand-in.ts';
import { textScript } from '../support/llm-stand-in/script.ts';
import { ADAPTERS, collect, textOf, userRequest } from './support/adapters.ts';
import { ManualClock } from '../../src/stream/testing/manual-clock.ts';
import { ScriptedChatModel, type Attempt } from './support/scripted-chat-model.ts';

const failure = (kind: ProviderErrorKind, retryAfterMs?: number) =>
  new ProviderError({ kind, message: `fake ${kind}`, retryAfterMs, provider: 'openai' });
const text = (value: string): StreamPart => ({ type: 'text-delta', text: value });
const end: StreamPart = {
  type: 'step-end',
  finishReason: 'stop',
  usage: { inputTokens: 1, outputTokens: 1, cachedInputTokens: 0 },
};

function setup(attempts: Attempt[], random = () => 0.5) {
  const clock = new ManualClock();
  const inner = new ScriptedChatModel(attempts);
  const model = new RetryingChatModel({
    model: inner,
    clock,
    random,
    policy: { maxAttempts: 3, baseDelayMs: 500, maxDelayMs: 8_000, maxRetryAfterMs: 20_000 },
  });
  return { clock, inner, model };
}

/** Runs the stream to its end, advancing the manual clock through every backoff. */
async function drive(
  model: RetryingChatModel,
  clock: ManualClock,
  signal = new AbortController().signal,
): Promise<{ parts: StreamPart[]; thrown: unknown }> {
  const parts: StreamPart[] = [];
  let done = false;
  const run = (async () => {
    try {
      for await (const part of model.stream(userRequest('gpt-5.4-mini'), signal)) parts.push(part);
      return undefined;
    } catch (error) {
      return error;
    } finally {
      done = true;
    }
  })();
  for (let round = 0; round < 20 && !done; round += 1) {
    await new Promise((resolve) => setImmediate(resolve));
    if (clock.pendingSleeps().length > 0) await clock.advance(60_000);
  }
  return { parts, thrown: await run };
}

describe('RetryingChatModel', () => {
  it('retries a retryable failure thrown before the first part, then streams the next attempt', async () => {
    const { clock, inner, model } = setup([
      { throws: failure('overloaded') },
      { parts: [text('Hi'), end] },
    ]);
    const { parts, thrown } = await drive(model, clock);
    expect(thrown).toBeUndefined();
    expect(parts).toEqual([text('Hi'), end]);
    expect(inner.calls).toBe(2);
  });

  it('backs off exponentially with full jitter from the injected random source', async () => {
    const { clock, model } = setup(
      [{ throws: failure('network') }, { throws: failure('timeout') }, { parts: [end] }],
      () => 0.5,
    );
    await drive(model, clock);
    // Ceilings 500 then 1000 ms; full jitter picks random() × ceiling.
    expect(clock.requestedSleeps).toEqual([250, 500]);
  });

  it('waits at least as long as the provider’s retry-after', async () => {
    const { clock, model } = setup(
      [{ throws: failure('rate_limit', 7_000) }, { parts: [end] }],
      () => 0.99,
    );
    await drive(model, clock);
    expect(clock.requestedSleeps).toEqual([7_000]);
  });

  it('surfaces a rate limit whose retry-after exceeds the bound instead of stalling the turn', async () => {
    const { clock, inner, model } = setup([
      { throws: failure('rate_limit', 60_000) },
      { parts: [end] },
    ]);
    const { thrown } = await drive(model, clock);
    expect(thrown).toMatchObject({ kind: 'rate_limit' });
    expect(inner.calls).toBe(1);
    expect(clock.requestedSleeps).toEqual([]);
  });

  it.each<ProviderErrorKind>([
    'auth',
    'quota',
    'model',
    'context_overflow',
    'content_filter',
    'bad_request',
    'unknown',
  ])('does not retry a %s failure', async (kind) => {
    const { clock, inner, model } = setup([{ throws: failure(kind) }, { parts: [end] }]);
    const { thrown } = await drive(model, clock);
    expect(thrown).toMatchObject({ kind });
    expect(inner.calls).toBe(1);
  });

  it('gives up after the last attempt and throws its failure', async () => {
    const { clock, inner, model } = setup([
      { throws: failure('overloaded') },
      { throws: failure('overloaded') },
      { throws: failure('network') },
      { parts: [end] },
    ]);
    const { thrown } = await drive(model, clock);
    expect(thrown).toMatchObject({ kind: 'network' });
    expect(inner.calls).toBe(3);
  });

  it('retries an error part that arrives before any other part', async () => {
    const { clock, inner, model } = setup([
      { parts: [{ type: 'error', error: failure('overloaded') }] },
      { parts: [text('ok'), end] },
    ]);
    const { parts } = await drive(model, clock);
    expect(parts).toEqual([text('ok'), end]);
    expect(inner.calls).toBe(2);
  });

  it.each<[string, StreamPart]>([
    ['a text delta', text('Once upon')],
    ['a tool call', { type: 'tool-call', id: 'c1', name: 'search', input: {}, inputText: '{}' }],
    ['a reasoning delta', { type: 'reasoning-delta', text: 'Let me think' }],
  ])('never retries once %s has been yielded', async (_label, first) => {
    const midStream: StreamPart = { type: 'error', error: failure('overloaded') };
    const { clock, inner, model } = setup([
      { parts: [first, midStream] },
      { parts: [text('again'), end] },
    ]);
    const { parts, thrown } = await drive(model, clock);
    expect(thrown).toBeUndefined();
    expect(parts).toEqual([first, midStream]);
    expect(inner.calls).toBe(1);
  });

  it('ends quietly, without another attempt, when aborted during the backoff', async () => {
    const { clock, inner, model } = setup([
      { throws: failure('overloaded') },
      { parts: [text('late'), end] },
    ]);
    const controller = new AbortController();
    const parts: StreamPart[] = [];
    const run = (async () => {
      for await (const part of model.stream(userRequest('gpt-5.4-mini'), controller.signal))
        parts.push(part);
    })();
    await clock.untilSleeping();
    controller.abort();
    await run;
    expect(parts).toEqual([]);
    expect(inner.calls).toBe(1);
  });
});

describe('RetryingChatModel over a real adapter', () => {
  let standIn: LlmStandIn;
  beforeAll(async () => {
    standIn = await LlmStandIn.start();
  });
  afterAll(async () => {
    await standIn.close();
  });

  it.each(ADAPTERS)(
    'retries a $vendor 429 after its retry-after, then answers',
    async ({ model: modelId, create }) => {
      standIn.enqueue(
        { steps: [{ type: 'fail', kind: 'rate_limit', retryAfterSeconds: 2 }] },
        textScript('Back again.'),
      );
      const clock = new ManualClock();
      const model = new RetryingChatModel({ model: create(standIn), clock, random: () => 0 });
      const result = collect(model, userRequest(modelId));
      await clock.untilSleeping();
      expect(clock.requestedSleeps).toEqual([2_000]);
      await clock.advance(2_000);
      const { parts, thrown } = await result;
      expect(thrown).toBeUndefined();
      expect(textOf(parts)).toBe('Back again.');
    },
  );
});
