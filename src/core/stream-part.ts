import type { ProviderError } from './errors.ts';
import type { ProviderMetadata } from './chat.ts';

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'error' | 'other';

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  /** Input tokens served from the provider's prompt cache (a subset of inputTokens). */
  cachedInputTokens: number;
  /** Output tokens spent on reasoning, when the provider reports them. */
  reasoningTokens?: number;
}

/**
 * The ONE stream-part union every provider adapter emits. A model call yields text and
 * reasoning deltas and tool calls in order, then exactly one `step-end` — or an `error` part
 * when it fails after the first part was yielded.
 */
export type StreamPart =
  | { type: 'text-delta'; text: string }
  | {
      type: 'reasoning-delta';
      text: string;
      /** Set on the delta that closes a reasoning block when the vendor signs it. */
      providerMetadata?: ProviderMetadata;
    }
  | {
      type: 'tool-call';
      id: string;
      name: string;
      /** Parsed JSON arguments; `undefined` when the model's JSON did not parse (see inputText). */
      input: unknown;
      /** The raw argument text as the model produced it. */
      inputText: string;
      providerMetadata?: ProviderMetadata;
    }
  | { type: 'step-end'; finishReason: FinishReason; usage: TokenUsage }
  | { type: 'error'; error: ProviderError };

export type StreamPartType = StreamPart['type'];

export const EMPTY_USAGE: TokenUsage = Object.freeze({
  inputTokens: 0,
  outputTokens: 0,
  cachedInputTokens: 0,
});
