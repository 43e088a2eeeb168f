import { randomUUID } from 'node:crypto';
import {
  FinishReason as GeminiFinishReason,
  type GenerateContentResponse,
  type Part,
} from '@google/genai';
import { ProviderError } from '../../core/errors.ts';
import type { FinishReason, StreamPart, TokenUsage } from '../../core/stream-part.ts';
import { EMPTY_USAGE } from '../../core/stream-part.ts';
import type { StreamMapper } from '../provider-stream.ts';
import { geminiMetadata } from './gemini-metadata.ts';

/** Every Gemini finish reason (a Record, so a new SDK value fails to compile until mapped). */
const FINISH_REASONS: Record<GeminiFinishReason, FinishReason> = {
  [GeminiFinishReason.STOP]: 'stop',
  [GeminiFinishReason.MAX_TOKENS]: 'length',
  [GeminiFinishReason.SAFETY]: 'content_filter',
  [GeminiFinishReason.RECITATION]: 'content_filter',
  [GeminiFinishReason.BLOCKLIST]: 'content_filter',
  [GeminiFinishReason.PROHIBITED_CONTENT]: 'content_filter',
  [GeminiFinishReason.SPII]: 'content_filter',
  [GeminiFinishReason.IMAGE_SAFETY]: 'content_filter',
  [GeminiFinishReason.IMAGE_PROHIBITED_CONTENT]: 'content_filter',
  [GeminiFinishReason.IMAGE_RECITATION]: 'content_filter',
  [GeminiFinishReason.LANGUAGE]: 'other',
  [GeminiFinishReason.OTHER]: 'other',
  [GeminiFinishReason.FINISH_REASON_UNSPECIFIED]: 'other',
  [GeminiFinishReason.MALFORMED_FUNCTION_CALL]: 'other',
  [GeminiFinishReason.UNEXPECTED_TOOL_CALL]: 'other',
  [GeminiFinishReason.TOO_MANY_TOOL_CALLS]: 'other',
  [GeminiFinishReason.NO_IMAGE]: 'other',
  [GeminiFinishReason.IMAGE_OTHER]: 'other',
  // Continuation is disabled in our requests; if it appears, the turn ended without more text.
  [GeminiFinishReason.CONTINUATION]: 'other',
  [GeminiFinishReason.MALFORMED_RESPONSE]: 'other',
};

/**
 * Maps streamGenerateContent responses to parts: text, `thought` parts as reasoning (a signature
 * rides on the reasoning delta that carries it), whole functionCall parts as tool calls (with
 * their signature), usage from the last usageMetadata, a blocked prompt as content_filter.
 */
export class GeminiStreamMapper implements StreamMapper<GenerateContentResponse> {
  #usage: TokenUsage = EMPTY_USAGE;
  #finishReason: GeminiFinishReason | undefined;
  #sawToolCall = false;
  #visibleOutput = false;

  map(response: GenerateContentResponse): StreamPart[] {
    if (response.usageMetadata) this.#usage = toUsage(response.usageMetadata);
    const blockReason = response.promptFeedback?.blockReason;
    if (blockReason !== undefined) {
      return [contentFilter(`the prompt was blocked (${blockReason})`)];
    }
    const candidate = response.candidates?.[0];
    if (candidate === undefined) return [];
    const parts = (candidate.content?.parts ?? []).flatMap((part) => this.#part(part));
    if (candidate.finishReason !== undefined) this.#finishReason = candidate.finishReason;
    return parts;
  }

  finish(): StreamPart[] {
    if (this.#finishReason === undefined) {
      const error = new ProviderError({
        kind: 'network',
        message: 'google: the stream ended before a finish reason',
        provider: 'google',
      });
      return [{ type: 'error', error }];
    }
    const finishReason = this.#mapFinishReason(this.#finishReason);
    if (finishReason === 'content_filter' && !this.#visibleOutput) {
      return [contentFilter(`the response was blocked (${this.#finishReason})`)];
    }
    return [{ type: 'step-end', finishReason, usage: this.#usage }];
  }

  #part(part: Part): StreamPart[] {
    const signature = part.thoughtSignature;
    if (part.functionCall) {
      this.#sawToolCall = true;
      this.#visibleOutput = true;
      const input = part.functionCall.args ?? {};
      return [
        {
          type: 'tool-call',
          id: part.functionCall.id ?? `call_${randomUUID()}`,
          name: part.functionCall.name ?? '',
          input,
          inputText: JSON.stringify(input),
          ...(signature === undefined ? {} : { providerMetadata: geminiMetadata(signature) }),
        },
      ];
    }
    const text = part.text ?? '';
    if (part.thought === true) {
      if (text === '' && signature === undefined) return [];
      return [
        {
          type: 'reasoning-delta',
          text,
          ...(signature === undefined ? {} : { providerMetadata: geminiMetadata(signature) }),
        },
      ];
    }
    // A signature on a plain text part is not validated by Gemini (only function-calling turns
    // are), and text deltas carry no metadata: it is dropped.
    if (text === '') return [];
    this.#visibleOutput = true;
    return [{ type: 'text-delta', text }];
  }

  #mapFinishReason(reason: GeminiFinishReason): FinishReason {
    const mapped = FINISH_REASONS[reason] ?? 'other';
    // Gemini ends a function-calling turn with STOP; the calls say what it was.
    return mapped === 'stop' && this.#sawToolCall ? 'tool_calls' : mapped;
  }
}

function toUsage(usage: NonNullable<GenerateContentResponse['usageMetadata']>): TokenUsage {
  const reasoningTokens = usage.thoughtsTokenCount ?? 0;
  return {
    inputTokens: (usage.promptTokenCount ?? 0) + (usage.toolUsePromptTokenCount ?? 0),
    // Gemini bills thinking as output but reports it apart from the candidates.
    outputTokens: (usage.candidatesTokenCount ?? 0) + reasoningTokens,
    cachedInputTokens: usage.cachedContentTokenCount ?? 0,
    ...(reasoningTokens > 0 ? { reasoningTokens } : {}),
  };
}

function contentFilter(message: string): StreamPart {
  const error = new ProviderError({
    kind: 'content_filter',
    message: `google: ${message}`,
    provider: 'google',
  });
  return { type: 'error', error };
}
