import type { ProviderId } from '../core/provider.ts';
import type { ModelPrice } from './model-price.ts';

export type TokenizerId = 'o200k' | 'cl100k' | 'estimate';

/** What the bot needs to know about a model to budget and call it. */
export interface ModelCapabilities {
  /** Input + output tokens the model accepts. */
  contextWindow: number;
  /** Largest `maxOutputTokens` the model accepts. */
  maxOutputTokens: number;
  vision: boolean;
  tools: boolean;
  /** Produces reasoning (thinking) output. */
  reasoning: boolean;
  /** Accepts a non-default temperature (several reasoning models reject one with a 400). */
  temperature: boolean;
  /** Exact tokenizer for OpenAI-family models; a calibrated estimate for the others. */
  tokenizer: TokenizerId;
  /** Multiplies the estimate for tokenizers denser than average (Claude 5: ~1.3). */
  estimateRatio: number;
  /**
   * Overrides the provider's first-byte timeout (RetryPolicy.firstByteTimeoutMs) for this model:
   * for a server that holds its response until a silent reasoning phase ends, or a local
   * server that loads the model on first use.
   */
  firstByteTimeoutMs?: number;
  /** List price; absent for a local server or a model nobody priced (it then costs 0). */
  price?: ModelPrice;
}

export interface CatalogEntry extends ModelCapabilities {
  provider: ProviderId;
  /** A model id or a family prefix: matches itself and ids continuing with - . : @ or /. */
  match: string;
}

type Shape = Omit<CatalogEntry, 'provider' | 'match'>;

const gpt = (
  contextWindow: number,
  maxOutputTokens: number,
  extra: Partial<Shape> = {},
): Shape => ({
  contextWindow,
  maxOutputTokens,
  vision: true,
  tools: true,
  reasoning: false,
  temperature: true,
  tokenizer: 'o200k',
  estimateRatio: 1,
  ...extra,
});
const reasoningGpt = (contextWindow: number, maxOutputTokens: number, extra: Partial<Shape> = {}) =>
  gpt(contextWindow, maxOutputTokens, { reasoning: true, temperature: false, ...extra });
const claude = (
  contextWindow: number,
  maxOutputTokens: number,
  extra: Partial<Shape> = {},
): Shape => ({
  contextWindow,
  maxOutputTokens,
  vision: true,
  tools: true,
  reasoning: true,
  // The current Messages API version takes no sampling parameters.
  temperature: false,
  tokenizer: 'estimate',
  estimateRatio: 1.1,
  ...extra,
});
// Claude 5 models use a denser tokenizer (~30% more tokens for the same text).
const claude5 = claude(1_000_000, 128_000, { estimateRatio: 1.3 });
const gemini = (maxOutputTokens: number, extra: Partial<Shape> = {}): Shape => ({
  contextWindow: 1_048_576,
  maxOutputTokens,
  vision: true,
  tools: true,
  reasoning: true,
  temperature: true,
  tokenizer: 'estimate',
  estimateRatio: 1,
  ...extra,
});

/** Dollars per million tokens: input, cached input, output. */
const usd = (input: number, cachedInput: number, output: number): { price: ModelPrice } => ({
  price: { inputPerMillion: input, cachedInputPerMillion: cachedInput, outputPerMillion: output },
});

const table: Record<ProviderId, Record<string, Shape>> = {
  openai: {
    'gpt-6': reasoningGpt(1_050_000, 128_000),
    'gpt-5.5': reasoningGpt(1_050_000, 128_000),
    'gpt-5.4': reasoningGpt(1_050_000, 128_000),
    'gpt-5.4-mini': reasoningGpt(400_000, 128_000),
    'gpt-5.4-nano': reasoningGpt(400_000, 128_000),
    'gpt-5': reasoningGpt(400_000, 128_000, usd(1.25, 0.125, 10)),
    'gpt-5-mini': reasoningGpt(400_000, 128_000, usd(0.25, 0.025, 2)),
    'gpt-5-nano': reasoningGpt(400_000, 128_000, usd(0.05, 0.005, 0.4)),
    'gpt-5-chat-latest': gpt(128_000, 16_384, usd(1.25, 0.125, 10)),
    'gpt-4.1': gpt(1_047_576, 32_768, usd(2, 0.5, 8)),
    'gpt-4.1-mini': gpt(1_047_576, 32_768, usd(0.4, 0.1, 1.6)),
    'gpt-4.1-nano': gpt(1_047_576, 32_768, usd(0.1, 0.025, 0.4)),
    'gpt-4o': gpt(128_000, 16_384, usd(2.5, 1.25, 10)),
    'gpt-4o-mini': gpt(128_000, 16_384, usd(0.15, 0.075, 0.6)),
    o1: reasoningGpt(200_000, 100_000, usd(15, 7.5, 60)),
    'o3-mini': reasoningGpt(200_000, 100_000, { vision: false, ...usd(1.1, 0.55, 4.4) }),
    o3: reasoningGpt(200_000, 100_000, usd(2, 0.5, 8)),
    'o4-mini': reasoningGpt(200_000, 100_000, usd(1.1, 0.275, 4.4)),
    'gpt-4-turbo': gpt(128_000, 4_096, { tokenizer: 'cl100k', ...usd(10, 10, 30) }),
    'gpt-4': gpt(8_192, 8_192, { vision: false, tokenizer: 'cl100k', ...usd(30, 30, 60) }),
    'gpt-3.5-turbo': gpt(16_385, 4_096, {
      vision: false,
      tokenizer: 'cl100k',
      ...usd(0.5, 0.5, 1.5),
    }),
  },
  anthropic: {
    'claude-fable': claude5,
    'claude-mythos': claude5,
    'claude-opus-5': claude5,
    'claude-sonnet-5': claude5,
    'claude-haiku-5': claude(200_000, 64_000, { estimateRatio: 1.3 }),
    'claude-opus-4-8': claude(1_000_000, 128_000),
    'claude-opus-4-7': claude(1_000_000, 128_000),
    'claude-opus-4-6': claude(1_000_000, 128_000),
    'claude-sonnet-4-6': claude(1_000_000, 128_000, usd(3, 0.3, 15)),
    'claude-opus-4-5': claude(200_000, 64_000, usd(5, 0.5, 25)),
    'claude-sonnet-4-5': claude(200_000, 64_000, usd(3, 0.3, 15)),
    'claude-haiku-4-5': claude(200_000, 64_000, usd(1, 0.1, 5)),
    claude: claude(200_000, 8_192),
  },
  google: {
    'gemini-3': gemini(65_536),
    'gemini-2.5': gemini(65_536),
    'gemini-2.5-pro': gemini(65_536, usd(1.25, 0.125, 10)),
    'gemini-2.5-flash': gemini(65_536, usd(0.3, 0.03, 2.5)),
    'gemini-2.5-flash-lite': gemini(65_536, usd(0.1, 0.01, 0.4)),
    'gemini-2.0': gemini(8_192, { reasoning: false }),
    'gemini-2.0-flash': gemini(8_192, { reasoning: false, ...usd(0.1, 0.025, 0.4) }),
  },
};

/**
 * The built-in catalogue. Numbers from each vendor's model pages (November 2026). Prices are
 * the standard (not batch) list prices where we had them; a model without one costs 0 until
 * the operator prices it in MODEL_CATALOG.
 */
export const BUILT_IN_ENTRIES: readonly CatalogEntry[] = Object.entries(table).flatMap(
  ([provider, models]) =>
    Object.entries(models).map(([match, shape]) => ({
      provider: provider as ProviderId,
      match,
      ...shape,
    })),
);

/** Used until an admin or the operator picks a model. */
export const DEFAULT_MODELS: Readonly<Record<ProviderId, string>> = {
  google: 'gemini-3.8-flash',
  openai: 'gpt-5.4-mini',
  anthropic: 'claude-sonnet-5-5',
};

/**
 * For a model nobody described (a local model behind Ollama, LM Studio, vLLM, llama.cpp): small
 * enough that a request fits any server's default context, and no tools or images the server
 * may reject. Operators raise it per model with MODEL_CATALOG.
 */
export const FALLBACK_CAPABILITIES: ModelCapabilities = {
  contextWindow: 8_192,
  maxOutputTokens: 2_048,
  vision: false,
  tools: false,
  reasoning: false,
  temperature: true,
  tokenizer: 'estimate',
  estimateRatio: 1,
};
