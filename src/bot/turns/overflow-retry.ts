import type { ChatMessage, ChatRequest, ToolSpec } from '../../core/chat.ts';
import { ProviderError } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';
import type { ResolvedModel } from '../../providers/provider-factory.ts';
import type { TurnOutcome } from '../../stream/turn/stream-orchestrator.ts';
import { buildRequest, type PreparedTurn } from '../context/turn-context.ts';

/**
 * When the provider says the context is too long and nothing was sent yet, the turn is tried
 * again with less history: each retry drops a larger share of the history the first attempt
 * included, the last one all of it — the attempt with no history always runs.
 */
export const MAX_OVERFLOW_RETRIES = 3;

/** How many of the oldest included history entries an overflow attempt drops. */
export function overflowDrop(attempt: number, firstIncluded: number | undefined): number {
  if (attempt === 0 || firstIncluded === undefined) return 0;
  return Math.ceil((firstIncluded * attempt) / MAX_OVERFLOW_RETRIES);
}

/** An attempt's messages up to its last tool results: the rounds whose tools already ran. */
export function completedToolRounds(messages: readonly ChatMessage[]): ChatMessage[] {
  const end = messages.findLastIndex((message) => message.role === 'tool');
  return messages.slice(0, end + 1);
}

/** The last attempt of a turn, and the request it was made with (the acknowledgement's base). */
export interface FinalAttempt {
  outcome: TurnOutcome;
  request: ChatRequest;
}

/**
 * Streams the turn, and again with less history after a context overflow that sent nothing.
 * Tool rounds an overflowed attempt completed are carried into the retry as results, instead of
 * letting the model run them again (a reminder set twice, a fact stored twice). Every attempt
 * keeps the turn's one id: its journal row is made live again.
 */
export async function streamWithOverflowRetry(options: {
  prepared: PreparedTurn;
  model: ResolvedModel;
  toolSpecs: readonly ToolSpec[];
  signal: AbortSignal;
  logger: Logger;
  stream(request: ChatRequest): Promise<TurnOutcome>;
  /** An overflowed attempt's tokens still count (the daily budget). */
  countOverflowed(outcome: TurnOutcome): Promise<void>;
}): Promise<FinalAttempt> {
  let completedRounds: ChatMessage[] = [];
  let firstIncluded: number | undefined;
  for (let attempt = 0; ; attempt += 1) {
    const built = await buildRequest({
      prepared: options.prepared,
      model: options.model,
      toolSpecs: options.toolSpecs,
      dropOldest: overflowDrop(attempt, firstIncluded),
    });
    firstIncluded ??= built.includedHistory;
    const request = { ...built.request, messages: [...built.request.messages, ...completedRounds] };
    const outcome = await options.stream(request);
    const retry =
      isContextOverflow(outcome) &&
      outcome.messageIds.length === 0 &&
      built.includedHistory > 0 &&
      attempt < MAX_OVERFLOW_RETRIES &&
      !options.signal.aborted;
    if (!retry) return { outcome, request };
    await options.countOverflowed(outcome);
    completedRounds = [...completedRounds, ...completedToolRounds(outcome.messages)];
    options.logger.info(
      { attempt, includedHistory: built.includedHistory },
      'context overflow: retrying with less history',
    );
  }
}

function isContextOverflow(outcome: TurnOutcome): boolean {
  return outcome.error instanceof ProviderError && outcome.error.kind === 'context_overflow';
}
