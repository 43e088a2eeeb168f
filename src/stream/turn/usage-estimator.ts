import type { AssistantMessage, ChatRequest } from '../../core/chat.ts';
import type { ProviderError } from '../../core/errors.ts';
import type { TokenUsage } from '../../core/stream-part.ts';

/**
 * What a model call cost when the provider did not say: a stopped stream, a failed one, a
 * server that reports no usage (or zeros). The bot implements it with the model's token counter.
 */
export interface UsageEstimator {
  /** Input tokens of the request as sent (system, messages, tool declarations). */
  input(request: ChatRequest): number;
  /** Output tokens of what the call streamed (text, reasoning, tool calls). */
  output(message: AssistantMessage): number;
}

/**
 * The usage to account for one model call: the provider's own numbers when it reported them;
 * otherwise the estimate of what was sent and streamed — except for a request the provider
 * refused with an HTTP error before streaming anything, which it does not bill.
 */
export function callUsage(options: {
  reported: TokenUsage | undefined;
  estimator: UsageEstimator | undefined;
  request: ChatRequest;
  streamed: AssistantMessage | undefined;
  receivedParts: boolean;
  error: ProviderError | undefined;
}): { usage: TokenUsage; estimated: boolean } | undefined {
  const { reported } = options;
  // Servers that report nothing still end the step with zeros; no real call costs 0 input.
  if (reported !== undefined && reported.inputTokens + reported.outputTokens > 0) {
    return { usage: reported, estimated: false };
  }
  const { estimator } = options;
  if (estimator === undefined) return undefined;
  const refused = !options.receivedParts && options.error?.status !== undefined;
  if (refused) return undefined;
  return {
    usage: {
      inputTokens: estimator.input(options.request),
      outputTokens: options.streamed === undefined ? 0 : estimator.output(options.streamed),
      cachedInputTokens: 0,
    },
    estimated: true,
  };
}
