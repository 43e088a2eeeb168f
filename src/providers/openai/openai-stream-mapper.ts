import { randomUUID } from 'node:crypto';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { ProviderError } from '../../core/errors.ts';
import type { FinishReason, StreamPart, TokenUsage } from '../../core/stream-part.ts';
import { EMPTY_USAGE } from '../../core/stream-part.ts';
import type { StreamMapper } from '../provider-stream.ts';
import { parseToolArguments } from '../tool-arguments.ts';
import { ThinkTagSplitter } from './think-tag-splitter.ts';

type ChunkDelta = ChatCompletionChunk.Choice.Delta & {
  /** DeepSeek, vLLM, LM Studio. */
  reasoning_content?: string | null;
  /** OpenRouter, Ollama, newer vLLM. */
  reasoning?: string | null;
};

interface PendingToolCall {
  id: string;
  name: string;
  arguments: string;
}

const NO_PARTS: readonly StreamPart[] = Object.freeze([]);

const FINISH_REASONS: Record<string, FinishReason> = {
  stop: 'stop',
  length: 'length',
  tool_calls: 'tool_calls',
  function_call: 'tool_calls',
  content_filter: 'content_filter',
};

/**
 * Maps chat.completions chunks to stream parts: text (with inline `<think>` split out),
 * `reasoning_content`/`reasoning` deltas, tool calls assembled from index-keyed argument
 * fragments (emitted whole, in index order, when the choice finishes), usage from the final
 * usage chunk.
 */
export class OpenAIStreamMapper implements StreamMapper<ChatCompletionChunk> {
  readonly #thinkSplitter = new ThinkTagSplitter();
  readonly #toolCalls = new Map<number, PendingToolCall>();
  #finishReason: FinishReason | undefined;
  #usage: TokenUsage = EMPTY_USAGE;
  #visibleOutput = false;
  #refused = false;

  map(chunk: ChatCompletionChunk): readonly StreamPart[] {
    if (chunk.usage) this.#usage = toUsage(chunk.usage);
    const choice = chunk.choices[0];
    if (choice === undefined) return NO_PARTS;
    const delta = choice.delta as ChunkDelta | undefined;
    // Nearly every chunk is one plain text delta: skip the general path (this runs per token).
    const content = delta?.content;
    if (
      typeof content === 'string' &&
      !choice.finish_reason &&
      !delta?.tool_calls &&
      !delta?.reasoning_content &&
      !delta?.reasoning &&
      !delta?.refusal &&
      this.#thinkSplitter.passesThrough(content)
    ) {
      if (content === '') return NO_PARTS;
      this.#visibleOutput = true;
      return [{ type: 'text-delta', text: content }];
    }
    const parts: StreamPart[] = [];
    if (delta) {
      const reasoning = delta.reasoning_content ?? delta.reasoning;
      if (typeof reasoning === 'string' && reasoning !== '') {
        parts.push({ type: 'reasoning-delta', text: reasoning });
      }
      if (typeof delta.content === 'string' && delta.content !== '') {
        for (const segment of this.#thinkSplitter.push(delta.content))
          parts.push(this.#segment(segment));
      }
      if (typeof delta.refusal === 'string' && delta.refusal !== '') {
        // A refusal is what the model says to the user; the finish reason records why.
        this.#refused = true;
        this.#visibleOutput = true;
        parts.push({ type: 'text-delta', text: delta.refusal });
      }
      if (delta.tool_calls) {
        for (const fragment of delta.tool_calls) this.#addToolFragment(fragment);
      }
    }
    if (choice.finish_reason) {
      this.#finishReason = FINISH_REASONS[choice.finish_reason] ?? 'other';
      parts.push(...this.#flush());
    }
    return parts;
  }

  finish(): StreamPart[] {
    const parts = this.#flush();
    if (this.#finishReason === undefined) {
      return [...parts, truncated('the stream ended before a finish reason')];
    }
    const finishReason = this.#refused ? 'content_filter' : this.#finishReason;
    if (finishReason === 'content_filter' && !this.#visibleOutput) {
      parts.push({
        type: 'error',
        error: new ProviderError({
          kind: 'content_filter',
          message: 'openai: the response was blocked by the content filter',
          provider: 'openai',
        }),
      });
      return parts;
    }
    parts.push({ type: 'step-end', finishReason, usage: this.#usage });
    return parts;
  }

  #segment(segment: { type: 'text' | 'reasoning'; text: string }): StreamPart {
    if (segment.type === 'reasoning') return { type: 'reasoning-delta', text: segment.text };
    this.#visibleOutput = true;
    return { type: 'text-delta', text: segment.text };
  }

  #addToolFragment(fragment: ChatCompletionChunk.Choice.Delta.ToolCall): void {
    const pending = this.#toolCalls.get(fragment.index);
    const call = pending ?? { id: '', name: '', arguments: '' };
    if (fragment.id) call.id = fragment.id;
    if (fragment.function?.name) call.name += fragment.function.name;
    if (fragment.function?.arguments) call.arguments += fragment.function.arguments;
    if (!pending) this.#toolCalls.set(fragment.index, call);
  }

  /** Text held back by the think splitter and the assembled tool calls, once the choice ends. */
  #flush(): StreamPart[] {
    const parts = this.#thinkSplitter.flush().map((segment) => this.#segment(segment));
    const calls = [...this.#toolCalls.entries()].sort(([left], [right]) => left - right);
    this.#toolCalls.clear();
    for (const [, call] of calls) {
      this.#visibleOutput = true;
      parts.push({
        type: 'tool-call',
        // Some local servers stream calls without ids; the tool loop needs one to pair results.
        id: call.id === '' ? `call_${randomUUID()}` : call.id,
        name: call.name,
        input: parseToolArguments(call.arguments),
        inputText: call.arguments,
      });
    }
    return parts;
  }
}

function toUsage(usage: NonNullable<ChatCompletionChunk['usage']>): TokenUsage {
  const reasoningTokens = usage.completion_tokens_details?.reasoning_tokens;
  return {
    inputTokens: usage.prompt_tokens,
    outputTokens: usage.completion_tokens,
    cachedInputTokens: usage.prompt_tokens_details?.cached_tokens ?? 0,
    ...(reasoningTokens ? { reasoningTokens } : {}),
  };
}

function truncated(message: string): StreamPart {
  return {
    type: 'error',
    error: new ProviderError({
      kind: 'network',
      message: `openai: ${message}`,
      provider: 'openai',
    }),
  };
}
