import type { HistoryMessage } from '../channel-history.ts';

/** A stored assistant turn the bot took part in (from the database). */
export interface StoredAssistantTurn {
  content: string;
  discordMessageIds: readonly string[];
  createdAt: number;
  status: 'streaming' | 'complete' | 'stopped' | 'failed';
}

/** One line of conversation before it becomes provider messages. */
export interface ConversationEntry {
  role: 'user' | 'assistant';
  text: string;
  createdAt: number;
}

/**
 * Merges the channel window (what everyone said) with the bot's stored turns (what it really
 * generated, which wins over the bot's Discord messages: those may be humanized, split, or
 * cut by a stop). Authors are labelled from Discord data the member cannot edit, so text in a
 * message can never pose as another speaker or as an assistant turn (anchor fault 9).
 *
 * A bot message counts as the bot's reply only when it belongs to a stored assistant turn. Its
 * other messages — rate-limit, queue-full, budget and failure notices, reminders — are the
 * bot's edge talking, not the model: fed back as the model's own words they would teach it to
 * apologise for rate limits (issue 12.11). The caller loads at least as many stored replies as
 * the window holds messages, so every reply in the window has its turn.
 */
export function toConversationEntries(options: {
  botUserId: string;
  window: readonly HistoryMessage[];
  storedTurns: readonly StoredAssistantTurn[];
  /** Nothing at or before this instant (the channel's reset marker). */
  after: number | undefined;
}): ConversationEntry[] {
  const turnByMessageId = new Map<string, StoredAssistantTurn>();
  for (const turn of options.storedTurns) {
    for (const id of turn.discordMessageIds) turnByMessageId.set(id, turn);
  }
  const used = new Set<StoredAssistantTurn>();
  const entries: ConversationEntry[] = [];
  for (const message of options.window) {
    if (options.after !== undefined && message.createdAt <= options.after) continue;
    if (message.authorId === options.botUserId) {
      const turn = turnByMessageId.get(message.id);
      if (turn !== undefined && !used.has(turn)) {
        used.add(turn);
        entries.push({ role: 'assistant', text: describeTurn(turn), createdAt: message.createdAt });
      }
      continue;
    }
    entries.push({ role: 'user', text: labelled(message), createdAt: message.createdAt });
  }
  return entries.filter((entry) => entry.text.trim() !== '');
}

function describeTurn(turn: StoredAssistantTurn): string {
  return turn.status === 'stopped'
    ? `${turn.content}\n[interrupted: the member asked you to stop here]`
    : turn.content;
}

/** `[name (id 123)]: text` plus a note per attachment. */
export function labelled(
  message: Pick<
    HistoryMessage,
    'authorName' | 'authorId' | 'authorIsBot' | 'content' | 'attachments'
  >,
): string {
  const speaker = `${sanitizeName(message.authorName)} (id ${message.authorId}${message.authorIsBot ? ', a bot' : ''})`;
  const notes = message.attachments.map(
    (attachment) =>
      `[attachment: ${sanitizeName(attachment.name)}${attachment.contentType ? `, ${attachment.contentType}` : ''}]`,
  );
  return [`[${speaker}]: ${message.content}`, ...notes].join('\n');
}

/** Display names are member-controlled: keep them to one short line without brackets. */
function sanitizeName(name: string): string {
  return (
    name
      .replace(/[\r\n[\]]/g, ' ')
      .replace(/\s+/g, ' ')
      .slice(0, 64)
      .trim() || 'someone'
  );
}
