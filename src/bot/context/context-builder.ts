import type { ChatMessage, ImagePart, TextPart } from '../../core/chat.ts';
import { UserFacingError } from '../../core/errors.ts';
import type { ConversationEntry } from './conversation-entries.ts';

/** The token counting the budget needs (the providers' TokenCounter satisfies it). */
export interface ContextTokenCounter {
  countText(text: string): number;
  /** Messages with their framing overhead and image costs. */
  countMessages(messages: readonly ChatMessage[]): number;
}

export interface ContextBudget {
  contextWindow: number;
  maxOutputTokens: number;
  counter: ContextTokenCounter;
  /** Tokens the tool declarations cost (sent with every request). */
  toolTokens: number;
}

export interface AssembledContext {
  system: string;
  messages: ChatMessage[];
  /** History entries included / available (seed 004's X / Y). */
  includedHistory: number;
  availableHistory: number;
  /** Estimated prompt tokens. */
  promptTokens: number;
}

/**
 * Builds the model's view of a turn under a token budget (seed 004): the system prompt, the
 * reminders and the new message are always included; history is added newest → oldest while
 * `prompt + max output ≤ context window`. Reminders (persona, memories, time — seed 000) sit
 * right before the final user message for salience. `dropOldest` removes that many of the
 * included history entries, for the retry after a provider's context_overflow.
 */
export function assembleContext(options: {
  system: string;
  history: readonly ConversationEntry[];
  reminders: readonly string[];
  finalUserParts: ReadonlyArray<TextPart | ImagePart>;
  budget: ContextBudget;
  dropOldest?: number;
}): AssembledContext {
  const { counter } = options.budget;
  const reminderParts: TextPart[] = options.reminders.map((text) => ({
    type: 'text',
    text: `<system-reminder>\n${text}\n</system-reminder>`,
  }));
  const finalMessage: ChatMessage = {
    role: 'user',
    content: [...reminderParts, ...options.finalUserParts],
  };
  const finalTokens = counter.countMessages([finalMessage]);
  const fixedTokens = counter.countText(options.system) + finalTokens + options.budget.toolTokens;
  const available = options.budget.contextWindow - options.budget.maxOutputTokens;
  if (fixedTokens > available) {
    throw new UserFacingError('error.message_too_large', { tokens: finalTokens });
  }

  let used = fixedTokens;
  let included = 0;
  for (let index = options.history.length - 1; index >= 0; index -= 1) {
    const entry = options.history[index];
    if (entry === undefined) break;
    const cost = entryTokens(entry, counter);
    if (used + cost > available) break;
    used += cost;
    included += 1;
  }
  included = Math.max(0, included - (options.dropOldest ?? 0));
  const history = options.history.slice(options.history.length - included);
  used = fixedTokens + history.reduce((sum, entry) => sum + entryTokens(entry, counter), 0);
  const messages = mergeConsecutive([...history.map(toMessage), finalMessage]);
  return {
    system: options.system,
    messages,
    includedHistory: included,
    availableHistory: options.history.length,
    promptTokens: used,
  };
}

function toMessage(entry: ConversationEntry): ChatMessage {
  return entry.role === 'user'
    ? { role: 'user', content: [{ type: 'text', text: entry.text }] }
    : { role: 'assistant', content: [{ type: 'text', text: entry.text }] };
}

function entryTokens(entry: ConversationEntry, counter: ContextTokenCounter): number {
  return counter.countMessages([toMessage(entry)]);
}

/**
 * Providers disagree on consecutive same-role messages (Anthropic merges, Gemini accepts,
 * some local servers reject), so consecutive user or assistant messages become one message
 * with several parts, and the first message is always a user message.
 */
function mergeConsecutive(messages: ChatMessage[]): ChatMessage[] {
  const merged: ChatMessage[] = [];
  for (const message of messages) {
    const previous = merged.at(-1);
    if (previous?.role === 'user' && message.role === 'user') {
      previous.content.push(...message.content);
    } else if (previous?.role === 'assistant' && message.role === 'assistant') {
      previous.content.push(...message.content);
    } else {
      merged.push({ ...message, content: [...message.content] } as ChatMessage);
    }
  }
  while (merged[0]?.role === 'assistant') merged.shift();
  return merged;
}
