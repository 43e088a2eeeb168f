import { describe, expect, it } from 'vitest';
import { ModelCatalog } from './model-catalog.ts';

describe('ModelCatalog', () => {
  const catalog = new ModelCatalog();

  it('describes known models and resolves dated or tagged ids to their family', () => {
    expect(catalog.lookup('openai', 'gpt-4o-2024-11-20')).toMatchObject({
      known: true,
      contextWindow: 128_000,
      maxOutputTokens: 16_384,
      tokenizer: 'o200k',
      vision: true,
    });
    expect(catalog.lookup('openai', 'gpt-5.4-mini-2026-03-17')).toMatchObject({
      contextWindow: 400_000,
    });
    expect(catalog.lookup('anthropic', 'claude-sonnet-5-5')).toMatchObject({
      contextWindow: 1_000_000,
      maxOutputTokens: 128_000,
      tokenizer: 'estimate',
      estimateRatio: 1.3,
    });
    expect(catalog.lookup('google', 'gemini-3.8-flash')).toMatchObject({
      contextWindow: 1_048_576,
      reasoning: true,
    });
  });

  it('prefers the longest matching family and never matches in the middle of a name', () => {
    expect(catalog.lookup('openai', 'o3-mini')).toMatchObject({ vision: false });
    expect(catalog.lookup('openai', 'o3')).toMatchObject({ vision: true });
    expect(catalog.lookup('openai', 'gpt-4o-mini').contextWindow).toBe(128_000);
    expect(catalog.lookup('openai', 'gpt-40-turbo-custom').known).toBe(false);
  });

  it('knows models served through a router by their vendor/model name', () => {
    expect(catalog.lookup('openai', 'anthropic/claude-opus-4-6')).toMatchObject({
      known: true,
      contextWindow: 1_000_000,
    });
  });

  it('falls back to a conservative description for unknown local models', () => {
    expect(catalog.lookup('openai', 'llama3.1:8b')).toEqual({
      id: 'llama3.1:8b',
      provider: 'openai',
      known: false,
      contextWindow: 8_192,
      maxOutputTokens: 2_048,
      vision: false,
      tools: false,
      reasoning: false,
      temperature: true,
      tokenizer: 'estimate',
      estimateRatio: 1,
    });
  });

  it('prices known models per million tokens and leaves local models unpriced', () => {
    const catalog = new ModelCatalog();
    expect(catalog.lookup('openai', 'gpt-5-mini-2025-08-07').price).toEqual({
      inputPerMillion: 0.25,
      cachedInputPerMillion: 0.025,
      outputPerMillion: 2,
    });
    expect(catalog.lookup('anthropic', 'claude-sonnet-4-5').price?.outputPerMillion).toBe(15);
    expect(catalog.lookup('openai', 'llama3.1:8b').price).toBeUndefined();
  });

  it('takes a price for any model from the operator', () => {
    const price = { inputPerMillion: 0.2, outputPerMillion: 0.8 };
    const catalog = new ModelCatalog({ models: { 'llama3.1': { price } } });
    expect(catalog.lookup('openai', 'llama3.1:8b').price).toEqual(price);
    const repriced = new ModelCatalog({ models: { 'gpt-5': { provider: 'openai', price } } });
    expect(repriced.lookup('openai', 'gpt-5').price).toEqual(price);
  });

  it('has a default model for every provider', () => {
    expect(catalog.defaultModel('google')).toBe('gemini-3.8-flash');
    expect(catalog.defaultModel('openai')).toBe('gpt-5.4-mini');
    expect(catalog.defaultModel('anthropic')).toBe('claude-sonnet-5-5');
  });

  it('merges operator overrides over built-ins and adds models it did not know', () => {
    const overridden = new ModelCatalog({
      models: {
        'gpt-5.4-mini': { contextWindow: 272_000 },
        llama3: { contextWindow: 131_072, tools: true },
      },
      defaults: { openai: 'llama3.1:8b' },
    });
    expect(overridden.lookup('openai', 'gpt-5.4-mini')).toMatchObject({
      contextWindow: 272_000,
      maxOutputTokens: 128_000,
      tokenizer: 'o200k',
    });
    expect(overridden.lookup('openai', 'llama3.1:8b')).toMatchObject({
      known: true,
      contextWindow: 131_072,
      tools: true,
      maxOutputTokens: 2_048,
    });
    expect(overridden.defaultModel('openai')).toBe('llama3.1:8b');
    expect(overridden.defaultModel('google')).toBe('gemini-3.8-flash');
  });
});
