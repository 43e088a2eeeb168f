import { importanceOf } from '../../core/importance.ts';
import type { HistoryMessage } from '../client/inbound-message.ts';

/** A stored turn (from the database); without `role` it is one of the bot's replies. */
export interface StoredTurn {
  role?: 'user' | 'assistant';
  content: string;
  discordMessageIds: readonly string[];
  createdAt: number;
  status: 'streaming' | 'complete' | 'stopped' | 'failed';
  authorId?: string;
  authorName?: string | null;
  importance?: number;
  pinned?: boolean;
  /** The member message a reply answers (its first Discord message replies to it). */
  triggerMessageId?: string | null;
  /** Its end was never written (its process died mid-turn, or the write is on its way). */
  unfinished?: boolean;
  /** The character that spoke a reply (`authorName` is its name); none: the bot itself. */
  characterId?: string | null;
}
export type StoredAssistantTurn = StoredTurn;

/** One line of conversation before it becomes provider messages. */
export interface ConversationEntry {
  role: 'user' | 'assistant';
  text: string;
  createdAt: number;
  /** 0–1 (core/importance.ts): what the selection keeps first. */
  importance: number;
  pinned: boolean;
}

const REPLY_IMPORTANCE = 0.5;

/**
 * Merges the channel window (what everyone said) with the stored turns: the bot's (what it
 * really generated, which wins over the bot's Discord messages: those may be humanized, split,
 * or cut by a stop) and the members' (their importance and pins). The window is the truth for
 * the time it covers; stored turns older than it reach further back. Authors are labelled from Discord data the member cannot edit, so text in a
 * message can never pose as another speaker or as an assistant turn.
 *
 * A bot message counts as the bot's reply only when it belongs to a stored assistant turn. Its
 * other messages — rate-limit, queue-full, budget and failure notices, reminders — are the
 * bot's edge talking, not the model: fed back as the model's own words they would teach it to
 * apologise for rate limits. The caller loads at least as many stored replies as
 * the window holds messages, so every reply in the window has its turn.
 */
export function toConversationEntries(options: {
  botUserId: string;
  /**
   * The character whose turn this is; undefined when the bot speaks as itself. The bot's words
   * in the speaker's own voice are the assistant's; in another voice (another character, or the
   * bot itself while a character speaks) they are that speaker's, labelled with its name.
   */
  speakerName?: string | undefined;
  window: readonly HistoryMessage[];
  storedTurns: readonly StoredTurn[];
  /** Nothing at or before this instant (the channel's reset marker). */
  after: number | undefined;
}): ConversationEntry[] {
  const turnByMessageId = new Map<string, StoredTurn>();
  for (const turn of options.storedTurns) {
    for (const id of turn.discordMessageIds) turnByMessageId.set(id, turn);
  }
  const used = new Set<StoredTurn>();
  const unfinished = unfinishedReplies(options.storedTurns);
  const entries: ConversationEntry[] = [];
  const windowStart = options.window[0]?.createdAt ?? Number.POSITIVE_INFINITY;
  for (const turn of options.storedTurns) {
    if (turn.createdAt >= windowStart) continue;
    if (options.after !== undefined && turn.createdAt <= options.after) continue;
    if (isReply(turn) && !shown(turn)) continue;
    const otherVoice = isReply(turn) && voiceOf(turn) !== options.speakerName;
    entries.push(otherVoice ? otherVoiceEntry(turn, options.botUserId) : storedEntry(turn));
  }
  for (const message of options.window) {
    if (options.after !== undefined && message.createdAt <= options.after) continue;
    const turn = turnByMessageId.get(message.id);
    const ownWords = message.authorId === options.botUserId || message.characterName !== undefined;
    // A character speaking through the bot (a DM) shows no webhook name: its turn names it.
    const voice = message.characterName ?? (turn === undefined ? undefined : voiceOf(turn));
    if (ownWords && voice !== options.speakerName) {
      // Another of the bot's voices: what it said there is attributed to it, notices left out.
      if (turn !== undefined)
        entries.push(voiceEntry({ ...message, authorName: voice ?? message.authorName }));
      continue;
    }
    if (ownWords) {
      // Only a bot message a stored turn spans is its reply; any other is a notice (12.11).
      if (turn !== undefined && !used.has(turn)) {
        used.add(turn);
        entries.push({ ...storedEntry(turn), createdAt: message.createdAt });
        continue;
      }
      const cut = unfinished.get(message.replyToMessageId ?? '');
      if (turn === undefined && cut !== undefined && !used.has(cut)) {
        used.add(cut);
        entries.push(unfinishedEntry(message));
      }
      continue;
    }
    entries.push({
      role: 'user',
      text: labelled(message),
      createdAt: message.createdAt,
      importance: turn?.importance ?? importanceOf('user', message.content),
      pinned: turn?.pinned ?? false,
    });
  }
  return entries.filter((entry) => entry.text.trim() !== '');
}

/**
 * Replies whose end was never written (their process died mid-turn, or the write is still on its
 * way), by the message they answer: until recovery records what members read of them
 * (recovery/cut-reply.ts), their first message in the window is shown as it stands.
 */
function unfinishedReplies(turns: readonly StoredTurn[]): Map<string, StoredTurn> {
  const byTrigger = new Map<string, StoredTurn>();
  for (const turn of turns) {
    const trigger = turn.triggerMessageId;
    if (!isUnfinishedReply(turn)) continue;
    if (trigger !== undefined && trigger !== null) byTrigger.set(trigger, turn);
  }
  return byTrigger;
}

/** A reply whose end was never written, so no text of it is stored yet. */
export function isUnfinishedReply(
  turn: Pick<StoredTurn, 'role' | 'unfinished' | 'content'>,
): boolean {
  return isReply(turn) && turn.unfinished === true && turn.content === '';
}

function unfinishedEntry(message: HistoryMessage): ConversationEntry {
  return {
    role: 'assistant',
    text: message.content,
    createdAt: message.createdAt,
    importance: REPLY_IMPORTANCE,
    pinned: false,
  };
}

function voiceEntry(message: HistoryMessage): ConversationEntry {
  return {
    role: 'user',
    text: labelled(message),
    createdAt: message.createdAt,
    importance: REPLY_IMPORTANCE,
    pinned: false,
  };
}

/** Which of the bot's voices spoke a stored reply: a character's name, or undefined (itself). */
function voiceOf(turn: StoredTurn): string | undefined {
  return turn.characterId === undefined || turn.characterId === null
    ? undefined
    : (turn.authorName ?? undefined);
}

/** A stored reply in another voice than the speaker's: that voice's words, labelled. */
function otherVoiceEntry(turn: StoredTurn, botUserId: string): ConversationEntry {
  return {
    role: 'user',
    text: labelled({
      authorName: turn.authorName ?? 'someone',
      authorId: turn.authorId ?? botUserId,
      authorIsBot: true,
      content: turn.content,
      attachments: [],
    }),
    createdAt: turn.createdAt,
    importance: turn.importance ?? REPLY_IMPORTANCE,
    pinned: turn.pinned ?? false,
  };
}

/**
 * Whether members saw the reply: complete, stopped, or failed part-way with what was delivered
 * recorded (a crash's cut reply, see recovery/cut-reply.ts). A failed reply with no text is not.
 */
function shown(turn: StoredTurn): boolean {
  return (
    turn.status === 'complete' ||
    turn.status === 'stopped' ||
    (turn.status === 'failed' && turn.content.trim() !== '')
  );
}

function isReply(turn: Pick<StoredTurn, 'role'>): boolean {
  return (turn.role ?? 'assistant') === 'assistant';
}

function storedEntry(turn: StoredTurn): ConversationEntry {
  const reply = isReply(turn);
  return {
    role: reply ? 'assistant' : 'user',
    text: reply
      ? describeTurn(turn)
      : labelled({
          authorName: turn.authorName ?? 'someone',
          authorId: turn.authorId ?? 'unknown',
          authorIsBot: false,
          content: turn.content,
          attachments: [],
        }),
    createdAt: turn.createdAt,
    importance: turn.importance ?? (reply ? REPLY_IMPORTANCE : importanceOf('user', turn.content)),
    pinned: turn.pinned ?? false,
  };
}

function describeTurn(turn: StoredTurn): string {
  if (turn.status === 'stopped') {
    return `${turn.content}\n[interrupted: the member asked you to stop here]`;
  }
  if (turn.status === 'failed') return `${turn.content}\n[cut off here: the reply was interrupted]`;
  return turn.content;
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
