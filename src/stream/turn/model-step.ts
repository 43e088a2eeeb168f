import type { AssistantMessage, ChatRequest, ToolCallPart } from '../../core/chat.ts';
import type { Clock } from '../../core/clock.ts';
import { isAbortError, ProviderError } from '../../core/errors.ts';
import type { ChatModel } from '../../core/provider.ts';
import type { FinishReason, TokenUsage } from '../../core/stream-part.ts';
import { AssistantMessageBuilder } from './assistant-message.ts';
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
  const { model, request, signal, clock, buffer, delivery, metrics } = options;
  const builder = new AssistantMessageBuilder();
  const toolCalls: ToolCallPart[] = [];
  const text: string[] = [];
  let finishReason: FinishReason | undefined;
  let usage: TokenUsage | undefined;
  let receivedParts = false;
  const result = (outcome: ModelStepResult['outcome'], error?: ProviderError): ModelStepResult => {
    const message = builder.build();
    const accounted = callUsage({
      reported: usage,
      estimator: options.estimator,
      request,
      streamed: message,
      receivedParts,
      error,
    });
    if (accounted !== undefined) metrics.usage(accounted.usage, { estimated: accounted.estimated });
    return {
      outcome,
      text: text.join(''),
      message,
      toolCalls,
      finishReason,
      error,
    };
  };

  // The call gets its own controller so a watchdog timeout can abort it too.
  const call = new AbortController();
  const forwardAbort = (): void => call.abort(signal.reason);
  signal.addEventListener('abort', forwardAbort, { once: true });
  let reader: ModelStreamReader;
  try {
    reader = new ModelStreamReader(model.stream(request, call.signal)[Symbol.asyncIterator](), {
      clock,
      timeoutMs: options.inactivityTimeoutMs,
      signal,
    });
  } catch (error) {
    signal.removeEventListener('abort', forwardAbort);
    return signal.aborted ? result('stopped') : result('failed', asProviderError(error, model));
  }

  try {
    for (;;) {
      const next = await reader.next();
      switch (next.kind) {
        case 'aborted':
          return result('stopped');
        case 'timeout':
          call.abort();
          return result(
            'failed',
            new ProviderError({
              kind: 'timeout',
              message: `the model stream sent nothing for ${options.inactivityTimeoutMs} ms`,
              provider: model.provider,
            }),
          );
        case 'thrown':
          if (signal.aborted && isAbortError(next.error)) return result('stopped');
          return result('failed', asProviderError(next.error, model));
        case 'end':
          return result('complete');
        case 'part':
          break;
      }
      metrics.part();
      const part = next.part;
      // An error part is no answer: a refusal still bills nothing.
      if (part.type !== 'error') receivedParts = true;
      switch (part.type) {
        case 'text-delta':
          if (part.text === '') break;
          metrics.token();
          metrics.textDeltas += 1;
          metrics.textCharacters += part.text.length;
          text.push(part.text);
          builder.addText(part.text);
          for (const block of buffer.push(part.text)) delivery.accept(block);
          delivery.preview(() => buffer.preview());
          break;
        case 'reasoning-delta':
          metrics.token();
          builder.addReasoning(part.text, part.providerMetadata);
          break;
        case 'tool-call': {
          const toolCall: ToolCallPart = {
            type: 'tool-call',
            id: part.id,
            name: part.name,
            input: part.input,
          };
          if (part.providerMetadata !== undefined)
            toolCall.providerMetadata = part.providerMetadata;
          builder.addToolCall(toolCall);
          toolCalls.push(toolCall);
          break;
        }
        case 'step-end':
          finishReason = part.finishReason;
          usage = part.usage;
          break;
        case 'error':
          return result('failed', part.error);
      }
    }
  } finally {
    signal.removeEventListener('abort', forwardAbort);
    reader.close();
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
