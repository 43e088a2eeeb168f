import type { ChatMessage } from '../../core/chat.ts';

/**
 * Context-overflow retries (seed 004): each drops a larger share of the history the first
 * attempt included, the last one all of it — the attempt with no history always runs.
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
