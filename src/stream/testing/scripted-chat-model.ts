import type { ChatRequest } from '../../core/chat.ts';
import type { ChatModel, ProviderId } from '../../core/provider.ts';
import type { StreamPart } from '../../core/stream-part.ts';

/** One scripted model call: parts to yield, or a function that produces them. */
export type ScriptedCall =
  | readonly StreamPart[]
  | ((request: ChatRequest, signal: AbortSignal) => AsyncIterable<StreamPart>);

/**
 * A ChatModel that plays one script per call, in order, and records each request. Scripts given
 * as part arrays honour the abort signal between parts like a real adapter.
 */
export class ScriptedChatModel implements ChatModel {
  readonly provider: ProviderId = 'openai';
  readonly requests: ChatRequest[] = [];
  /** The model ids `checkModel` was asked about; every check passes. */
  readonly checkedModels: string[] = [];
  private readonly scripts: ScriptedCall[];

  constructor(scripts: ScriptedCall[]) {
    this.scripts = [...scripts];
  }

  stream(request: ChatRequest, signal: AbortSignal): AsyncIterable<StreamPart> {
    this.requests.push(structuredClone(request));
    const script = this.scripts.shift();
    if (script === undefined) throw new Error('ScriptedChatModel: no script left for this call');
    return typeof script === 'function' ? script(request, signal) : playParts(script, signal);
  }

  checkModel(modelId: string, signal: AbortSignal): Promise<void> {
    this.checkedModels.push(modelId);
    signal.throwIfAborted();
    return Promise.resolve();
  }
}

async function* playParts(
  parts: readonly StreamPart[],
  signal: AbortSignal,
): AsyncIterable<StreamPart> {
  for (const part of parts) {
    if (signal.aborted) return;
    await Promise.resolve();
    yield part;
  }
}

/** Text split into deltas of `size` characters (the last may be shorter). */
export function textDeltas(text: string, size: number): StreamPart[] {
  const parts: StreamPart[] = [];
  for (let index = 0; index < text.length; index += size) {
    parts.push({ type: 'text-delta', text: text.slice(index, index + size) });
  }
  return parts;
}

/** A step end with usage, as every adapter emits last. */
export function stepEnd(
  finishReason: 'stop' | 'tool_calls' | 'length' | 'content_filter' = 'stop',
  usage = { inputTokens: 100, outputTokens: 20, cachedInputTokens: 10 },
): StreamPart {
  return { type: 'step-end', finishReason, usage };
}
