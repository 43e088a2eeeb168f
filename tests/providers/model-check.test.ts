import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ProviderError } from '../../src/core/errors.ts';
import { silentLogger } from '../../src/core/logger.ts';
import { ModelCatalog } from '../../src/providers/model-catalog.ts';
import { OpenAIChatModel } from '../../src/providers/openai/openai-chat-model.ts';
import { ProviderFactory, type OperatorDefaults } from '../../src/providers/provider-factory.ts';
import { RetryingChatModel } from '../../src/providers/retrying-chat-model.ts';
import { createGate } from '../support/llm-stand-in/gate.ts';
import { LlmStandIn } from '../support/llm-stand-in/llm-stand-in.ts';
import { modelLookup } from '../support/llm-stand-in/model-routes.ts';
import { ADAPTERS } from './support/adapters.ts';
import { ManualClock } from '../../src/stream/testing/manual-clock.ts';
import { ScriptedChatModel } from './support/scripted-chat-model.ts';

let standIn: LlmStandIn;
beforeAll(async () => {
  standIn = await LlmStandIn.start();
});
afterAll(async () => {
  await standIn.close();
});
beforeEach(() => {
  standIn.handleModelLookups(modelLookup());
});

const noSignal = () => new AbortController().signal;

/** What `checkModel` rejected with (it must reject). */
async function rejection(check: Promise<void>): Promise<unknown> {
  try {
    await check;
  } catch (error) {
    return error;
  }
  throw new Error('expected the check to fail');
}

/** Gemini's version segment is the SDK's choice (v1 in @google/genai 3, v1beta before). */
const LOOKUP_PATHS = {
  openai: /^\/openai\/v1\/models\/([^/]+)$/,
  anthropic: /^\/anthropic\/v1\/models\/([^/]+)$/,
  google: /^\/google\/v1(?:beta)?\/models\/([^/]+)$/,
} as const;

describe.each(ADAPTERS)('checkModel through the real $vendor SDK', (adapter) => {
  it('passes for a known model and a good key, with one GET of the model record', async () => {
    standIn.handleModelLookups(modelLookup({ knownModels: [adapter.model] }));
    const before = standIn.requests.length;
    await expect(adapter.create(standIn).checkModel(adapter.model, noSignal())).resolves.toBe(
      undefined,
    );
    const recorded = standIn.requests.slice(before);
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({
      vendor: adapter.vendor,
      method: 'GET',
      model: adapter.model,
      apiKey: expect.any(String) as unknown,
    });
    expect(LOOKUP_PATHS[adapter.vendor].exec(recorded[0]?.url ?? '')?.[1]).toBe(adapter.model);
  });

  it('fails with `auth` when the key is refused', async () => {
    standIn.handleModelLookups(modelLookup({ acceptedKeys: ['some-other-key'] }));
    const error = await rejection(adapter.create(standIn).checkModel(adapter.model, noSignal()));
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: 'auth', retryable: false, provider: adapter.vendor });
  });

  it('fails with `model` for a model the provider does not have', async () => {
    standIn.handleModelLookups(modelLookup({ knownModels: [adapter.model] }));
    const error = await rejection(adapter.create(standIn).checkModel('no-such-model', noSignal()));
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: 'model', status: 404, retryable: false });
  });

  it('fails with `rate_limit` and the retry-after on a 429', async () => {
    standIn.handleModelLookups(() => ({ type: 'fail', kind: 'rate_limit', retryAfterSeconds: 3 }));
    const error = await rejection(adapter.create(standIn).checkModel(adapter.model, noSignal()));
    expect(error).toMatchObject({ kind: 'rate_limit', retryable: true, retryAfterMs: 3_000 });
  });

  it('fails with `network` when the connection breaks', async () => {
    standIn.handleModelLookups(() => ({ type: 'drop' }));
    const error = await rejection(adapter.create(standIn).checkModel(adapter.model, noSignal()));
    expect(error).toMatchObject({ kind: 'network', retryable: true });
  });

  it('ends promptly with the abort reason, closing the request, when the signal aborts', async () => {
    const gate = createGate();
    standIn.handleModelLookups(async () => {
      await gate.wait();
      return { type: 'found' };
    });
    const controller = new AbortController();
    const check = adapter.create(standIn).checkModel(adapter.model, controller.signal);
    const request = await standIn.waitForRequest();
    controller.abort();
    const error = await rejection(check);
    expect(error).toMatchObject({ name: 'AbortError' });
    await request.settled;
    expect(request.clientClosed).toBe(true);
    expect(gate.released).toBe(false);
    gate.release();
  });
});

describe('checkModel against OpenAI-compatible local servers', () => {
  const local = (apiKey: string | undefined) =>
    new OpenAIChatModel({
      apiKey,
      baseUrl: standIn.openAIBaseUrl,
      catalog: new ModelCatalog(),
      logger: silentLogger,
    });

  it('sends no key to a keyless server and passes model ids with colons and slashes intact', async () => {
    const models = ['llama3.2:3b', 'meta-llama/llama-3.3-70b-instruct'];
    standIn.handleModelLookups(modelLookup({ knownModels: models }));
    for (const model of models) await local(undefined).checkModel(model, noSignal());
    const recorded = standIn.requests.slice(-2);
    expect(recorded.map((request) => request.model)).toEqual(models);
    expect(recorded.map((request) => request.headers.authorization)).toEqual([
      undefined,
      undefined,
    ]);
  });

  it('classifies a server that lacks the route (its plain-text 404 page) as `model`', async () => {
    standIn.handleModelLookups(() => ({
      type: 'http-error',
      status: 404,
      body: '404 page not found',
    }));
    const error = await rejection(local('sk-local').checkModel('llama3.2:3b', noSignal()));
    expect(error).toMatchObject({ kind: 'model', status: 404, provider: 'openai' });
  });
});

describe('RetryingChatModel.checkModel', () => {
  const failure = (kind: 'network' | 'rate_limit' | 'auth') =>
    new ProviderError({ kind, message: `fake ${kind}`, provider: 'openai' });
  const retrying = (inner: ScriptedChatModel) =>
    new RetryingChatModel({ model: inner, clock: new ManualClock(), random: () => 0.5 });

  it('retries a network failure once, at once, and passes when the second try does', async () => {
    const inner = new ScriptedChatModel([{ throws: failure('network') }, { parts: [] }]);
    await retrying(inner).checkModel('gpt-5.4-mini', noSignal());
    expect(inner.calls).toBe(2);
  });

  it('gives up after a second network failure', async () => {
    const inner = new ScriptedChatModel([
      { throws: failure('network') },
      { throws: failure('network') },
      { parts: [] },
    ]);
    const error = await rejection(retrying(inner).checkModel('gpt-5.4-mini', noSignal()));
    expect(error).toMatchObject({ kind: 'network' });
    expect(inner.calls).toBe(2);
  });

  it.each(['rate_limit', 'auth'] as const)('reports %s at once, without retrying', async (kind) => {
    const inner = new ScriptedChatModel([{ throws: failure(kind) }, { parts: [] }]);
    const error = await rejection(retrying(inner).checkModel('gpt-5.4-mini', noSignal()));
    expect(error).toMatchObject({ kind });
    expect(inner.calls).toBe(1);
  });
});

describe('ProviderFactory.check', () => {
  const defaults = (): OperatorDefaults => ({
    defaultProvider: 'google',
    defaultModel: 'gemini-3.8-flash',
    providerKeys: { google: 'AIza-operator', openai: undefined, anthropic: undefined },
    providerBaseUrls: {
      google: standIn.geminiBaseUrl,
      openai: undefined,
      anthropic: standIn.anthropicBaseUrl,
    },
  });
  const scopeKey = {
    provider: 'anthropic',
    model: 'claude-opus-4-6',
    apiKey: 'sk-ant-new',
  } as const;

  it("reports ok with whose key was used, sending the scope's own key", async () => {
    const factory = new ProviderFactory({ defaults: defaults() });
    await expect(factory.check(scopeKey, noSignal())).resolves.toEqual({
      ok: true,
      provider: 'anthropic',
      modelId: 'claude-opus-4-6',
      keySource: 'scope',
    });
    expect(standIn.requests.at(-1)).toMatchObject({ method: 'GET', apiKey: 'sk-ant-new' });
    const operator = { provider: undefined, model: undefined, apiKey: undefined };
    await expect(factory.check(operator, noSignal())).resolves.toMatchObject({
      ok: true,
      provider: 'google',
      modelId: 'gemini-3.8-flash',
      keySource: 'operator',
    });
  });

  it('returns an auth failure, without calling anyone, when there is no key', async () => {
    const before = standIn.requests.length;
    const check = await new ProviderFactory({ defaults: defaults() }).check(
      { provider: 'openai', model: undefined, apiKey: undefined },
      noSignal(),
    );
    expect(check).toMatchObject({ ok: false, provider: 'openai', keySource: 'none' });
    expect(check.ok ? undefined : check.error).toMatchObject({ kind: 'auth', retryable: false });
    expect(standIn.requests.length).toBe(before);
  });

  it('returns the classified failure for a refused key or an unknown model', async () => {
    const factory = new ProviderFactory({ defaults: defaults() });
    standIn.handleModelLookups(
      modelLookup({ acceptedKeys: ['AIza-operator'], knownModels: ['gemini-3.8-flash'] }),
    );
    const refused = await factory.check(scopeKey, noSignal());
    expect(refused).toMatchObject({ ok: false, keySource: 'scope', error: { kind: 'auth' } });
    const unknown = await factory.check(
      { provider: 'google', model: 'gemini-0-nonexistent', apiKey: undefined },
      noSignal(),
    );
    expect(unknown).toMatchObject({ ok: false, keySource: 'operator', error: { kind: 'model' } });
  });

  it('retries a broken connection once and then reports ok', async () => {
    let lookups = 0;
    standIn.handleModelLookups(() => (++lookups === 1 ? { type: 'drop' } : { type: 'found' }));
    const check = await new ProviderFactory({ defaults: defaults() }).check(scopeKey, noSignal());
    expect(check.ok).toBe(true);
    expect(lookups).toBe(2);
  });

  it('gives up on a provider that does not answer within 10 s with a timeout failure', async () => {
    const gate = createGate();
    standIn.handleModelLookups(async () => {
      await gate.wait();
      return { type: 'found' };
    });
    const clock = new ManualClock();
    const result = new ProviderFactory({ defaults: defaults(), clock }).check(scopeKey, noSignal());
    const request = await standIn.waitForRequest();
    await clock.untilSleeping();
    expect(clock.requestedSleeps).toEqual([10_000]);
    let settled = false;
    void result.then(() => {
      settled = true;
    });
    await clock.advance(9_999);
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    await clock.advance(1);
    const check = await result;
    expect(check).toMatchObject({ ok: false, keySource: 'scope', error: { kind: 'timeout' } });
    await request.settled;
    expect(request.clientClosed).toBe(true);
    gate.release();
  });

  it("rethrows the caller's abort instead of reporting a provider failure", async () => {
    const gate = createGate();
    standIn.handleModelLookups(async () => {
      await gate.wait();
      return { type: 'found' };
    });
    const controller = new AbortController();
    const result = new ProviderFactory({ defaults: defaults() }).check(scopeKey, controller.signal);
    await standIn.waitForRequest();
    controller.abort();
    await expect(result).rejects.toMatchObject({ name: 'AbortError' });
    gate.release();
  });
});
