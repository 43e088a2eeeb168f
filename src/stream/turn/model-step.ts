import type { AssistantMessage, ChatRequest, ToolCallPart } from '../../core/chat.ts';
import type { Clock } from '../../core/clock.ts';
import { isAbortError, ProviderError } from '../../core/errors.ts';
import type { ChatModel } from '../../core/provider.ts';
import type { FinishReason, StreamPart, TokenUsage } from '../../core/stream-part.ts';
import { AssistantMessageBuilder, toolCallPartOf } from './assistant-message.ts';
import type { SemanticBlockBuffer } from '../blocks/block-buffer.ts';
import { ModelStreamReader } from './model-stream-reader.ts';
import type { ReplyDelivery } from '../reply/reply-delivery.ts';
import type { TurnMetricsRecorder } from './turn-metrics.ts';
import { callUsage, type UsageEstimator } from './usage-estimator.ts';

export interface ModelStepResult {
  outcome: 'complete' | 'stopped' | 'failed';
  /** The text the model wrote in this call. */
  text: string;
  /** Text, reasoning and tool calls in stream order; undefined when the call produced none. */
  message: AssistantMessage | undefined;
  toolCalls: ToolCallPart[];
  finishReason: FinishReason | undefined;
  error: ProviderError | undefined;
}

export interface ModelStepOptions {
  model: ChatModel;
  request: ChatRequest;
  /** The turn's signal: a stop or shutdown aborts the call. */
  signal: AbortSignal;
  clock: Clock;
  inactivityTimeoutMs: number;
  buffer: SemanticBlockBuffer;
  delivery: ReplyDelivery;
  metrics: TurnMetricsRecorder;
  /** Accounts the call when the provider reports no usage (stopped, failed, silent servers). */
  estimator?: UsageEstimator;
}

/**
 * One model call: text deltas go through the block buffer to delivery as they arrive,
 * reasoning is set aside (kept for the assistant message, never shown), tool calls are
 * collected. A provider failure — thrown before the first part, an `error` part, or silence past
 * the watchdog — is returned as a value, never thrown.
 */
export async function runModelStep(options: ModelStepOptions): Promise<ModelStepResult> {
  const { model, request, signal } = options;
  const output = new StepOutput(options);
  // The call gets its own controller so a watchdog timeout can abort it too.
  const call = new AbortController();
  const forwardAbort = (): void => call.abort(signal.reason);
  signal.addEventListener('abort', forwardAbort, { once: true });
  let reader: ModelStreamReader;
  try {
    reader = new ModelStreamReader(model.stream(request, call.signal)[Symbol.asyncIterator](), {
      clock: options.clock,
      timeoutMs: options.inactivityTimeoutMs,
      signal,
    });
  } catch (error) {
    signal.removeEventListener('abort', forwardAbort);
    return signal.aborted
      ? output.result('stopped')
      : output.result('failed', asProviderError(error, model));
  }
  try {
    return await readToEnd(reader, { output, call, options });
  } finally {
    signal.removeEventListener('abort', forwardAbort);
    reader.close();
  }
}

/** Takes parts until the stream ends, fails, goes silent or is stopped. */
async function readToEnd(
  reader: ModelStreamReader,
  step: { output: StepOutput; call: AbortController; options: ModelStepOptions },
): Promise<ModelStepResult> {
  const { output, call, options } = step;
  for (;;) {
    const next = await reader.next();
    switch (next.kind) {
      case 'aborted':
        return output.result('stopped');
      case 'timeout':
        call.abort();
        return output.result(
          'failed',
          new ProviderError({
            kind: 'timeout',
            message: `the model stream sent nothing for ${options.inactivityTimeoutMs} ms`,
            provider: options.model.provider,
          }),
        );
      case 'thrown':
        if (options.signal.aborted && isAbortError(next.error)) return output.result('stopped');
        return output.result('failed', asProviderError(next.error, options.model));
      case 'end':
        return output.result('complete');
      case 'part': {
        const failed = output.take(next.part);
        if (failed !== undefined) return failed;
      }
    }
  }
}

/** What one model call has produced so far, and the result it comes to. */
class StepOutput {
  private readonly options: ModelStepOptions;
  private readonly builder = new AssistantMessageBuilder();
  private readonly toolCalls: ToolCallPart[] = [];
  private readonly text: string[] = [];
  private finishReason: FinishReason | undefined;
  private usage: TokenUsage | undefined;
  private receivedParts = false;

  constructor(options: ModelStepOptions) {
    this.options = options;
  }

  /** Records one part; answers the failed result when the part is an error. */
  take(part: StreamPart): ModelStepResult | undefined {
    const { metrics } = this.options;
    metrics.part();
    // An error part is no answer: a refusal still bills nothing.
    if (part.type !== 'error') this.receivedParts = true;
    switch (part.type) {
      case 'text-delta':
        this.takeText(part.text);
        return undefined;
      case 'reasoning-delta':
        metrics.token();
        this.builder.addReasoning(part.text, part.providerMetadata);
        return undefined;
      case 'tool-call':
        this.takeToolCall(part);
        return undefined;
      case 'step-end':
        this.finishReason = part.finishReason;
        this.usage = part.usage;
        return undefined;
      case 'error':
        return this.result('failed', part.error);
    }
  }

  /** Accounts the call's usage (reported, or else estimated) and answers how it ended. */
  result(outcome: ModelStepResult['outcome'], error?: ProviderError): ModelStepResult {
    const message = this.builder.build();
    const accounted = callUsage({
      reported: this.usage,
      estimator: this.options.estimator,
      request: this.options.request,
      streamed: message,
      receivedParts: this.receivedParts,
      error,
    });
    if (accounted !== undefined) {
      this.options.metrics.usage(accounted.usage, { estimated: accounted.estimated });
    }
    return {
      outcome,
      text: this.text.join(''),
      message,
      toolCalls: this.toolCalls,
      finishReason: this.finishReason,
      error,
    };
  }

  /** Text goes on to delivery as it arrives, block by block, with a live preview. */
  private takeText(text: string): void {
    if (text === '') return;
    const { metrics, buffer, delivery } = this.options;
    metrics.token();
    metrics.textDeltas += 1;
    metrics.textCharacters += text.length;
    this.text.push(text);
    this.builder.addText(text);
    delivery.streamed(text);
    for (const block of buffer.push(text)) delivery.accept(block);
    delivery.preview(() => buffer.preview());
  }

  private takeToolCall(part: Extract<StreamPart, { type: 'tool-call' }>): void {
    const toolCall = toolCallPartOf(part);
    this.builder.addToolCall(toolCall);
    this.toolCalls.push(toolCall);
  }
}

/** A failure that is not already classified (an adapter bug, a thrown non-error) as a ProviderError. */
function asProviderError(error: unknown, model: ChatModel): ProviderError {
  if (error instanceof ProviderError) return error;
  return new ProviderError({
    kind: 'unknown',
    message: error instanceof Error ? error.message : String(error),
    provider: model.provider,
    cause: error,
  });
}
