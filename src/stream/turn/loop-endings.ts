import type { ToolCallPart, ToolResultPart } from '../../core/chat.ts';
import { ProviderError } from '../../core/errors.ts';
import type { ProviderId } from '../../core/provider.ts';
import type { FinishReason } from '../../core/stream-part.ts';

/** What the model is told for each tool call past the turn's limits, instead of a result. */
const TOOL_LIMIT_MESSAGE =
  'Tool limit reached for this reply: no more tools can run. Answer now with what you have.';

/** Nothing to show is a failure the member should hear about (with a Retry), not silence. */
export function emptyReplyError(
  finishReason: FinishReason | null,
  provider: ProviderId,
): ProviderError {
  const filtered = finishReason === 'content_filter';
  return new ProviderError({
    kind: filtered ? 'content_filter' : 'model',
    message: 'the model returned an empty reply',
    retryable: !filtered,
    provider,
  });
}

/** The result given back for a tool call the turn's limits do not let run. */
export function toolLimitRefusal(call: ToolCallPart): ToolResultPart {
  return {
    type: 'tool-result',
    callId: call.id,
    name: call.name,
    output: TOOL_LIMIT_MESSAGE,
    isError: true,
  };
}
