import type { ChatRequest } from './chat.ts';
import type { StreamPart } from './stream-part.ts';

export const PROVIDER_IDS = ['google', 'openai', 'anthropic'] as const;
export type ProviderId = (typeof PROVIDER_IDS)[number];

/** Per-call tunables a caller (the retry policy) sets for one `stream` call. */
export interface StreamCallOptions {
  /**
   * The response (status and headers) must start within this many milliseconds, else the call
   * fails with a retryable `timeout` ProviderError before its first part.
   */
  firstByteTimeoutMs?: number;
}

/**
 * The provider contract. `stream` may throw a ProviderError before its first part; after that,
 * failures arrive as an `error` part and the iterable ends. Aborting `signal` closes the HTTP
 * stream and ends the iterable promptly.
 */
export interface ChatModel {
  readonly provider: ProviderId;
  stream(
    request: ChatRequest,
    signal: AbortSignal,
    options?: StreamCallOptions,
  ): AsyncIterable<StreamPart>;
  /**
   * The vendor's cheapest authenticated call (a GET of the model's record): resolves when the
   * key works and the model exists. Rejects with a ProviderError classified like a chat call's
   * (`auth`, `model`, `rate_limit`, `network`, …); when `signal` aborts, rejects promptly with
   * the signal's reason instead.
   */
  checkModel(modelId: string, signal: AbortSignal): Promise<void>;
}
