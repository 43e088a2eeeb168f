import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelCatalog } from '../../src/providers/model-catalog.ts';
import { ProviderFactory, type OperatorDefaults } from '../../src/providers/provider-factory.ts';
import { createGate } from '../support/llm-stand-in/gate.ts';
import { LlmStandIn } from '../support/llm-stand-in/llm-stand-in.ts';
import { ManualClock } from '../../src/stream/testing/manual-clock.ts';

let standIn: LlmStandIn;
beforeAll(async () => {
  standIn = await LlmStandIn.start({ listedModels: ['llama3.1:8b', 'qwen3:14b'] });
});
afterAll(() => standIn.close());

const noSignal = () => new AbortController().signal;

function defaults(overrides: Partial<OperatorDefaults> = {}): OperatorDefaults {
  return {
    defaultProvider: 'openai',
    defaultModel: undefined,
    providerKeys: { openai: undefined, anthropic: 'sk-ant-operator', google: undefined },
    providerBaseUrls: { openai: standIn.openAIBaseUrl, anthropic: undefined, google: undefined },
    ...overrides,
  };
}

const openai = { provider: 'openai' as const, model: undefined, apiKey: undefined };

describe('a local server’s model list (listServerModels)', () => {
  it('lists what an OpenAI-compatible server of the operator’s offers, sending the scope’s key', async () => {
    const factory = new ProviderFactory({ defaults: defaults() });
    const listed = await factory.listServerModels(
      { ...openai, apiKey: 'sk-scope' },
      { signal: noSignal(), timeoutMs: 2_000 },
    );
    expect(listed).toEqual(['llama3.1:8b', 'qwen3:14b']);
    expect(standIn.requests.at(-1)).toMatchObject({
      method: 'GET',
      url: '/openai/v1/models',
      apiKey: 'sk-scope',
    });
  });

  it('asks no one where the catalogue is the better list: vendors’ own endpoints', async () => {
    const before = standIn.requests.length;
    const factory = new ProviderFactory({
      defaults: defaults({
        providerKeys: { openai: 'sk-operator', anthropic: 'sk-ant-operator', google: undefined },
        providerBaseUrls: { openai: undefined, anthropic: undefined, google: undefined },
      }),
    });
    const options = { signal: noSignal(), timeoutMs: 2_000 };
    await expect(factory.listServerModels(openai, options)).resolves.toBeUndefined();
    await expect(
      factory.listServerModels({ ...openai, provider: 'anthropic' }, options),
    ).resolves.toBeUndefined();
    expect(standIn.requests.length).toBe(before);
  });

  it('gives up with a timeout on the injected clock when the server does not answer', async () => {
    const gate = createGate();
    standIn.listModels(async () => {
      await gate.wait();
      return ['llama3.1:8b'];
    });
    try {
      const clock = new ManualClock();
      const factory = new ProviderFactory({ defaults: defaults(), clock });
      const listing = factory.listServerModels(openai, { signal: noSignal(), timeoutMs: 2_000 });
      const request = await standIn.waitForRequest();
      await clock.untilSleeping();
      expect(clock.pendingSleeps()).toEqual([2_000]);
      // Handled before time moves: advancing lets macrotasks run while the listing rejects.
      const rejected = expect(listing).rejects.toMatchObject({ kind: 'timeout' });
      await clock.advance(2_000);
      await rejected;
      await request.settled;
      expect(request.clientClosed).toBe(true);
    } finally {
      gate.release();
      standIn.listModels(['llama3.1:8b', 'qwen3:14b']);
    }
  });
});

describe('what a scope’s choice stands for', () => {
  it('fills the gaps with the operator’s defaults and says whose key a keyless scope uses', () => {
    const factory = new ProviderFactory({ defaults: defaults() });
    expect(factory.target({ provider: undefined, model: undefined })).toEqual({
      provider: 'openai',
      modelId: 'gpt-5.4-mini',
    });
    expect(factory.target({ provider: 'anthropic', model: 'claude-opus-4-6' })).toEqual({
      provider: 'anthropic',
      modelId: 'claude-opus-4-6',
    });
    expect(factory.fallbackKeySource('anthropic')).toBe('operator');
    expect(factory.fallbackKeySource('openai')).toBe('none');
    expect(factory.fallbackKeySource('google')).toBeUndefined();
  });

  it('suggests the catalogue’s models of a provider, its default first', () => {
    const catalog = new ModelCatalog({
      models: { 'llama3.1': { contextWindow: 131_072 } },
      defaults: { openai: 'llama3.1:8b' },
    });
    const ids = catalog.modelIds('openai');
    expect(ids[0]).toBe('llama3.1:8b');
    expect(ids).toContain('llama3.1');
    expect(ids).toContain('gpt-5.4-mini');
    expect(catalog.modelIds('anthropic')).not.toContain('gpt-5.4-mini');
  });
});
