import type { RawMessageStreamEvent, StopReason } from '@anthropic-ai/sdk/resources/messages';
import { ProviderError } from '../../core/errors.ts';
import type { FinishReason, StreamPart, TokenUsage } from '../../core/stream-part.ts';
import type { StreamMapper } from '../provider-stream.ts';
import { parseToolArguments } from '../tool-arguments.ts';
import { anthropicMetadata } from './anthropic-metadata.ts';

type OpenBlock =
  | { type: 'text' }
  | { type: 'thinking'; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'tool_use'; id: string; name: string; json: string }
  | { type: 'other' };

const FINISH_REASONS: Record<StopReason, FinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  // The model filled the context window while writing: for the caller, output was cut short.
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
  pause_turn: 'other',
};

/**
 * Maps Messages stream events to parts: text deltas, thinking deltas (the block's signature, or
 * a redacted block's data, rides on an empty reasoning delta when the block closes), tool_use
 * blocks assembled from `input_json_delta` fragments (emitted when the block closes), usage from
 * message_start and message_delta.
 */
export class AnthropicStreamMapper implements StreamMapper<RawMessageStreamEvent> {
  readonly #blocks = new Map<number, OpenBlock>();
  #inputTokens = 0;
  #cachedInputTokens = 0;
  #outputTokens = 0;
  #reasoningTokens: number | undefined;
  #stopReason: StopReason | undefined;
  #stopped = false;
  #visibleOutput = false;

  map(event: RawMessageStreamEvent): StreamPart[] {
    switch (event.type) {
      case 'message_start': {
        const usage = event.message.usage;
        this.#cachedInputTokens = usage.cache_read_input_tokens ?? 0;
        this.#inputTokens =
          usage.input_tokens + (usage.cache_creation_input_tokens ?? 0) + this.#cachedInputTokens;
        this.#outputTokens = usage.output_tokens;
        return [];
      }
      case 'content_block_start':
        return this.#start(event.index, event.content_block);
      case 'content_block_delta':
        return this.#delta(event.index, event.delta);
      case 'content_block_stop':
        return this.#stop(event.index);
      case 'message_delta':
        this.#stopReason = event.delta.stop_reason ?? this.#stopReason;
        this.#outputTokens = event.usage.output_tokens;
        this.#reasoningTokens =
          event.usage.output_tokens_details?.thinking_tokens ?? this.#reasoningTokens;
        return [];
      case 'message_stop':
        this.#stopped = true;
        return [];
    }
  }

  finish(): StreamPart[] {
    if (!this.#stopped) {
      return [failure('network', 'the stream ended before message_stop')];
    }
    const finishReason =
      this.#stopReason === undefined ? 'other' : FINISH_REASONS[this.#stopReason];
    if (finishReason === 'content_filter' && !this.#visibleOutput) {
      return [failure('content_filter', 'the model refused to answer')];
    }
    const usage: TokenUsage = {
      inputTokens: this.#inputTokens,
      outputTokens: this.#outputTokens,
      cachedInputTokens: this.#cachedInputTokens,
      ...(this.#reasoningTokens ? { reasoningTokens: this.#reasoningTokens } : {}),
    };
    return [{ type: 'step-end', finishReason, usage }];
  }

  #start(
    index: number,
    block: Extract<RawMessageStreamEvent, { type: 'content_block_start' }>['content_block'],
  ): StreamPart[] {
    if (block.type === 'text') {
      this.#blocks.set(index, { type: 'text' });
      return this.#text(block.text);
    }
    if (block.type === 'thinking') {
      this.#blocks.set(index, { type: 'thinking', signature: block.signature });
      return block.thinking === '' ? [] : [{ type: 'reasoning-delta', text: block.thinking }];
    }
    if (block.type === 'redacted_thinking') {
      this.#blocks.set(index, { type: 'redacted_thinking', data: block.data });
      return [];
    }
    if (block.type === 'tool_use') {
      this.#blocks.set(index, { type: 'tool_use', id: block.id, name: block.name, json: '' });
      return [];
    }
    // Server-side tool blocks (web search…) are not requested by this adapter.
    this.#blocks.set(index, { type: 'other' });
    return [];
  }

  #delta(
    index: number,
    delta: Extract<RawMessageStreamEvent, { type: 'content_block_delta' }>['delta'],
  ): StreamPart[] {
    const block = this.#blocks.get(index);
    switch (delta.type) {
      case 'text_delta':
        return this.#text(delta.text);
      case 'thinking_delta':
        return delta.thinking === '' ? [] : [{ type: 'reasoning-delta', text: delta.thinking }];
      case 'signature_delta':
        if (block?.type === 'thinking') block.signature += delta.signature;
        return [];
      case 'input_json_delta':
        if (block?.type === 'tool_use') block.json += delta.partial_json;
        return [];
      case 'citations_delta':
        return [];
    }
  }

  #stop(index: number): StreamPart[] {
    const block = this.#blocks.get(index);
    this.#blocks.delete(index);
    switch (block?.type) {
      case 'thinking':
        return block.signature === ''
          ? []
          : [
              {
                type: 'reasoning-delta',
                text: '',
                providerMetadata: anthropicMetadata({ signature: block.signature }),
              },
            ];
      case 'redacted_thinking':
        return [
          {
            type: 'reasoning-delta',
            text: '',
            providerMetadata: anthropicMetadata({ redactedData: block.data }),
          },
        ];
      case 'tool_use':
        this.#visibleOutput = true;
        return [
          {
            type: 'tool-call',
            id: block.id,
            name: block.name,
            input: parseToolArguments(block.json),
            inputText: block.json,
          },
        ];
      case 'text':
      case 'other':
      case undefined:
        return [];
    }
  }

  #text(text: string): StreamPart[] {
    if (text === '') return [];
    this.#visibleOutput = true;
    return [{ type: 'text-delta', text }];
  }
}

function failure(kind: 'network' | 'content_filter', message: string): StreamPart {
  return {
    type: 'error',
    error: new ProviderError({ kind, message: `anthropic: ${message}`, provider: 'anthropic' }),
  };
}
