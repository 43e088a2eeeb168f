import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderError } from '../../src/core/errors.ts';
import type { ChatModel, ProviderId } from '../../src/core/provider.ts';
import { OpenAIChatModel } from '../../src/providers/openai/openai-chat-model.ts';
import { ProviderFactory, type OperatorDefaults } from '../../src/providers/provider-factory.ts';
import { RetryingChatModel } from '../../src/providers/retrying-chat-model.ts';
import type { VendorModelOptions } from '../../src/providers/vendor-model-options.ts';
import { LlmStandIn } from '../support/llm-stand-in/llm-stand-in.ts';
import { textScript } from '../support/llm-stand-in/script.ts';
import { collect, textOf, userRequest } from './support/adapters.ts';

let standIn: LlmStandIn;
beforeAll(async () => {
  standIn = await LlmStandIn.start();
});
afterAll(async () => {
  await standIn.close();
});

function operator(overrides: Partial<OperatorDefaults> = {}): OperatorDefaults {
  return {
    defaultProvider: 'google',
    defaultModel: 'gemini-3.7-flash',
    providerKeys: { google: 'AIza-operator', openai: 'sk-operator', anthropic: undefined },
    providerBaseUrls: {
      google: standIn.geminiBaseUrl,
      openai: standIn.openAIBaseUrl,
      anthropic: standIn.anthropicBaseUrl,
    },
    ...overrides,
  };
}

const noChoice = { provider: undefined, model: undefined, apiKey: undefined };

describe('ProviderFactory', () => {
  it("uses the operator's provider, model and key for a scope that chose nothing", async () => {
    const resolved = new ProviderFactory({ defaults: operator() }).resolve(noChoice);
    expect(resolved).toMatchObject({
      provider: 'google',
      modelId: 'gemini-3.7-flash',
      keySource: 'operator',
    });
    expect(resolved.chatModel).toBeInstanceOf(RetryingChatModel);
    standIn.enqueue(textScript('Hello from Gemini'));
    const { parts } = await collect(resolved.chatModel, userRequest(resolved.modelId));
    expect(textOf(parts)).toBe('Hello from Gemini');
    expect(standIn.requests.at(-1)).toMatchObject({
      vendor: 'google',
      apiKey: 'AIza-operator',
      model: 'gemini-3.7-flash',
    });
  });

  it("uses the scope's own provider, model and key when it set them", async () => {
    const factory = new ProviderFactory({ defaults: operator() });
    const resolved = factory.resolve({
      provider: 'anthropic',
      model: 'claude-opus-4-6',
      apiKey: 'sk-ant-scope',
    });
    expect(resolved).toMatchObject({
      provider: 'anthropic',
      modelId: 'claude-opus-4-6',
      keySource: 'scope',
    });
    expect(resolved.info).toMatchObject({ known: true, contextWindow: 1_000_000 });
    standIn.enqueue(textScript('Hi'));
    await collect(resolved.chatModel, userRequest(resolved.modelId));
    expect(standIn.requests.at(-1)).toMatchObject({ vendor: 'anthropic', apiKey: 'sk-ant-scope' });
  });

  it("applies the operator's default model only to the operator's default provider", () => {
    const resolved = new ProviderFactory({ defaults: operator() }).resolve({
      ...noChoice,
      provider: 'openai',
    });
    expect(resolved).toMatchObject({
      provider: 'openai',
      modelId: 'gpt-5.4-mini',
      keySource: 'operator',
    });
  });

  it('talks to a keyless OpenAI-compatible server when only a base URL is set', async () => {
    const defaults = operator({
      defaultProvider: 'openai',
      defaultModel: 'llama3.1:8b',
      providerKeys: { google: undefined, openai: undefined, anthropic: undefined },
    });
    const resolved = new ProviderFactory({ defaults }).resolve(noChoice);
    expect(resolved).toMatchObject({
      keySource: 'none',
      info: { known: false, contextWindow: 8_192 },
    });
    standIn.enqueue(textScript('Local hello'));
    const { parts } = await collect(resolved.chatModel, userRequest(resolved.modelId));
    expect(textOf(parts)).toBe('Local hello');
    const request = standIn.requests.at(-1);
    expect(request?.apiKey).toBeUndefined();
    expect(request?.headers.authorization).toBeUndefined();
  });

  it.each<[ProviderId, Partial<OperatorDefaults>]>([
    ['anthropic', {}],
    ['google', { providerKeys: { google: undefined, openai: undefined, anthropic: undefined } }],
    [
      'openai',
      {
        providerKeys: { google: undefined, openai: undefined, anthropic: undefined },
        providerBaseUrls: { google: undefined, openai: undefined, anthropic: undefined },
      },
    ],
  ])('refuses %s without a key with a clear auth error', (provider, overrides) => {
    const factory = new ProviderFactory({ defaults: operator(overrides) });
    const attempt = () => factory.resolve({ ...noChoice, provider });
    expect(attempt).toThrow(ProviderError);
    expect(attempt).toThrow(new RegExp(`no API key for ${provider}`));
    try {
      attempt();
    } catch (error) {
      expect(error).toMatchObject({ kind: 'auth', retryable: false, provider });
    }
  });

  it('reuses one SDK client per provider, key and base URL, and evicts the least recently used', () => {
    const created: string[] = [];
    const factory = new ProviderFactory({
      defaults: operator(),
      cacheSize: 2,
      createVendorModel: (provider: ProviderId, options: VendorModelOptions): ChatModel => {
        created.push(`${provider}:${options.apiKey}`);
        return new OpenAIChatModel(options);
      },
    });
    const openai = (apiKey: string | undefined) =>
      factory.resolve({ provider: 'openai', model: undefined, apiKey });
    openai('sk-a');
    openai('sk-a');
    openai(undefined); // the operator's key
    openai('sk-a'); // still cached, now most recent
    openai('sk-b'); // evicts the operator-key client
    openai(undefined);
    expect(created).toEqual([
      'openai:sk-a',
      'openai:sk-operator',
      'openai:sk-b',
      'openai:sk-operator',
    ]);
  });
});
