/**
 * The first-byte deadline through each real SDK against the stand-in, on a manual clock: a provider
 * that never starts its response is retried once, quietly, and the turn fails with a `timeout` the
 * member is told about within 25 s; a response that started and then went silent is left to the
 * inactivity watchdog. Gemini's HTTP Retry-After is honoured like the others'.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderError } from '../../src/core/errors.ts';
import type { ProviderId } from '../../src/core/provider.ts';
import { ProviderFactory } from '../../src/providers/provider-factory.ts';
import { StreamOrchestrator } from '../../src/stream/turn/stream-orchestrator.ts';
import { ManualClock } from '../../src/stream/testing/manual-clock.ts';
import { RecordingJournal } from '../../src/stream/testing/recording-journal.ts';
import { RecordingSink } from '../../src/stream/testing/recording-sink.ts';
import { BASE_REQUEST, TOOL_CONTEXT } from '../../src/stream/testing/turn-fixture.ts';
import { createGate } from '../support/llm-stand-in/gate.ts';
import { LlmStandIn } from '../support/llm-stand-in/llm-stand-in.ts';
import { textScript } from '../support/llm-stand-in/script.ts';
import { ADAPTERS, collect, thrownProviderError, userRequest } from './support/adapters.ts';

const NO_TOOLS = {
  specs: () => [],
  execute: () => Promise.resolve({ ok: false as const, error: 'none' }),
};

let standIn: LlmStandIn;
beforeAll(async () => {
  standIn = await LlmStandIn.start();
});
afterAll(() => standIn.close());

function factoryOn(clock: ManualClock): ProviderFactory {
  return new ProviderFactory({
    defaults: {
      defaultProvider: 'openai',
      defaultModel: undefined,
      providerKeys: { openai: 'sk-test', anthropic: 'sk-ant-test', google: 'AIza-test' },
      providerBaseUrls: {
        openai: standIn.openAIBaseUrl,
        anthropic: standIn.anthropicBaseUrl,
        google: standIn.geminiBaseUrl,
      },
    },
    clock,
    random: () => 0.5,
  });
}

/** One turn as the bot runs it, on the real adapter of `vendor`. */
function startTurn(vendor: ProviderId, model: string, clock: ManualClock) {
  const resolved = factoryOn(clock).resolve({ provider: vendor, model, apiKey: undefined });
  const orchestrator = new StreamOrchestrator({
    journal: new RecordingJournal(),
    clock,
    random: () => 0.5,
  });
  return orchestrator.run({
    turnId: `turn-${vendor}`,
    model: resolved.chatModel,
    request: { ...BASE_REQUEST, model },
    tools: NO_TOOLS,
    toolContext: TOOL_CONTEXT,
    sink: new RecordingSink(),
    humanizerDegree: 0,
    deliveryMode: 'messages',
  });
}

describe.each(ADAPTERS)('a silent provider on the $vendor wire', (adapter) => {
  it('is retried once, quietly, and the turn fails with a timeout within 25 s', async () => {
    const clock = new ManualClock();
    const started = clock.now();
    const before = standIn.requests.length;
    standIn.enqueue({ steps: [{ type: 'no-response' }] }, { steps: [{ type: 'no-response' }] });
    const outcome = startTurn(adapter.vendor, adapter.model, clock);
    const first = await standIn.waitForRequest(before + 1);
    await clock.advance(10_000);
    await first.settled;
    expect(first.clientClosed).toBe(true);
    const second = await standIn.waitForRequest(before + 2);
    await clock.advance(10_000);
    const ended = await outcome;
    await second.settled;

    expect(ended.status).toBe('failed');
    expect(ended.error).toBeInstanceOf(ProviderError);
    expect((ended.error as ProviderError).kind).toBe('timeout');
    expect(clock.now() - started).toBeLessThanOrEqual(25_000);
    expect(standIn.requests.length - before).toBe(2);
    expect(second.clientClosed).toBe(true);
  });

  it('leaves a response that started and then went silent to the inactivity watchdog', async () => {
    const clock = new ManualClock();
    const before = standIn.requests.length;
    const gate = createGate();
    standIn.enqueue({
      steps: [{ type: 'hold', gate }, ...textScript('late but fine').steps],
    });
    const outcome = startTurn(adapter.vendor, adapter.model, clock);
    await standIn.waitForRequest(before + 1);
    // Far past the first-byte timeout, short of the 60 s watchdog: nobody gives up.
    await clock.advance(30_000);
    gate.release();
    const ended = await outcome;
    expect(ended.status).toBe('complete');
    expect(ended.content).toBe('late but fine');
    expect(standIn.requests.length - before).toBe(1);
  });
});

describe("Gemini's Retry-After header", () => {
  const gemini = ADAPTERS.find((adapter) => adapter.vendor === 'google')!;
  const body = (code: number, status: string) =>
    JSON.stringify({ error: { code, message: 'Try again later.', status } });

  it('is read from a 429 and a 503 whose body has no RetryInfo', async () => {
    const model = gemini.create(standIn);
    standIn.enqueue(
      {
        steps: [
          {
            type: 'http-error',
            status: 429,
            body: body(429, 'RESOURCE_EXHAUSTED'),
            headers: { 'content-type': 'application/json', 'retry-after': '7' },
          },
        ],
      },
      {
        steps: [
          {
            type: 'http-error',
            status: 503,
            body: body(503, 'UNAVAILABLE'),
            headers: { 'content-type': 'application/json', 'retry-after': '3' },
          },
        ],
      },
    );
    const limited = thrownProviderError(await collect(model, userRequest(gemini.model)));
    expect(limited).toMatchObject({ kind: 'rate_limit', retryAfterMs: 7_000 });
    const overloaded = thrownProviderError(await collect(model, userRequest(gemini.model)));
    expect(overloaded).toMatchObject({ kind: 'overloaded', retryAfterMs: 3_000 });
  });

  it('makes the retry wait at least that long', async () => {
    const clock = new ManualClock();
    const before = standIn.requests.length;
    standIn.enqueue(
      {
        steps: [
          {
            type: 'http-error',
            status: 429,
            body: body(429, 'RESOURCE_EXHAUSTED'),
            headers: { 'content-type': 'application/json', 'retry-after': '12' },
          },
        ],
      },
      textScript('after the wait'),
    );
    const outcome = startTurn('google', gemini.model, clock);
    await standIn.waitForRequest(before + 1);
    await clock.untilSleeping();
    await clock.advance(11_999);
    expect(standIn.requests.length - before).toBe(1);
    await clock.advance(1);
    expect((await outcome).content).toBe('after the wait');
    expect(standIn.requests.length - before).toBe(2);
  });
});
