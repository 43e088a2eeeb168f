import type { ChatRequest, ImagePart, TextPart } from '../../core/chat.ts';
import type { Logger } from '../../core/logger.ts';
import type { ScopeSettings } from '../../core/settings.ts';
import type { ToolSpec } from '../../core/chat.ts';
import type { Database } from '../../db/database.ts';
import type { ContextTurn, ContextTurnLimits } from '../../db/context-turn-repository.ts';
import { turnStartOf, type TurnStart } from '../../db/turn-start-repository.ts';
import { finishAssistantTurn } from '../../db/turn-repository.ts';
import type { ResolvedModel } from '../../providers/provider-factory.ts';
import {
  boundCounterFor,
  loadTokenizer,
  tokenCounterFor,
  type TokenCounter,
} from '../../providers/token-counter.ts';
import {
  compareSnowflakes,
  type HistoryMessage,
  type InboundMessage,
} from '../client/inbound-message.ts';
import type { ChannelHistory } from './channel-history.ts';
import { assembleContext, MESSAGE_TOO_LARGE, type AssembledContext } from './context-builder.ts';
import { UserFacingError } from '../../core/errors.ts';
import {
  isUnfinishedReply,
  labelled,
  toConversationEntries,
  type ConversationEntry,
  type StoredTurn,
} from './conversation-entries.ts';
import { buildReminders, buildSystemPrompt, type PersonaContext } from './persona.ts';
import { attachmentParts, type Download } from './trigger-attachments.ts';
import type { UnrecordedReplies } from './unrecorded-replies.ts';
import { prefetchedRead, type PrefetchedStart, type TurnStartKey } from './turn-start-prefetch.ts';

/** Replies are chat-sized; a long code answer still fits. The model's own cap may be lower. */
const MAX_REPLY_TOKENS = 8_192;
/**
 * Stored turns a context chooses from: the newest (at least the channel window's 50 messages and
 * their replies: a bot message without a stored turn is taken for a notice and left out), the newest important ones and the newest pins. Index-bounded reads.
 */
const STORED_TURNS: ContextTurnLimits = { recent: 150, important: 150, pinned: 30 };

export interface PreparedTurn {
  /** History, persona, reminders and the new message(s) — without the context trimming yet. */
  history: readonly ConversationEntry[];
  system: string;
  /** The channel's rolling summary of what the history leaves out, if any. */
  summary: string | undefined;
  reminders: string[];
  finalUserParts: Array<TextPart | ImagePart>;
  maxOutputTokens: number;
  temperature: number | undefined;
  /**
   * Members' messages before the ones being answered that no bot message followed: the model
   * sees them as still unanswered, so a reply delivered whole answers them too. `addressed`:
   * those that mention the bot, reply to it or came in a DM — the ones a claim may be owed for.
   */
  unansweredBefore: UnansweredTail;
}

/** The unanswered tail: ids, those addressed to the bot, and each one's text as labelled. */
export interface UnansweredTail {
  ids: readonly string[];
  addressed: readonly string[];
  /** Message id → its text as the model reads it (`labelled`). */
  texts: ReadonlyMap<string, string>;
}

/**
 * The part of the tail the request really shows as unanswered: whose text stands in the user
 * messages after its last assistant message (trimming may leave some out, and a reply placed
 * after them answers them already). Only those can be answered in passing.
 */
export function seenUnanswered(tail: UnansweredTail, request: ChatRequest): UnansweredTail {
  const lastAssistant = request.messages.findLastIndex((message) => message.role === 'assistant');
  const shown = request.messages
    .slice(lastAssistant + 1)
    .filter((message) => message.role === 'user')
    .flatMap((message) => message.content)
    .map((part) => (part.type === 'text' ? part.text : ''))
    .join('\n');
  const seen = (id: string) => {
    const text = tail.texts.get(id);
    return text !== undefined && text.trim() !== '' && shown.includes(text);
  };
  return { ...tail, ids: tail.ids.filter(seen), addressed: tail.addressed.filter(seen) };
}

export interface PrepareTurnOptions {
  db: Database;
  history: ChannelHistory;
  settings: ScopeSettings;
  model: ResolvedModel;
  /** The member messages being answered, in order (one, or a coalesced batch). */
  messages: readonly InboundMessage[];
  botUserId: string;
  place: PersonaContext['place'];
  now: Date;
  download: Download;
  logger: Logger;
  signal: AbortSignal;
  /** Replies members saw whose record failed: written again first, else shown from memory. */
  unrecorded?: UnrecordedReplies;
  /** The turn being prepared (its journal row may be written already). */
  turnId?: string | undefined;
  /**
   * The start read intake began for this turn's message (turn-start-prefetch.ts): used when it
   * is of what this turn reads, else read here.
   */
  prefetched?: PrefetchedStart | undefined;
  /** Runs each database read, waiting out a short outage (default: once). */
  hold?: <T>(read: () => Promise<T>) => Promise<T>;
  /** The character whose turn this is (undefined: the bot as itself). */
  speakerName?: string | undefined;
  /** Its id: its own memories of the author enter the context. */
  speakerId?: string | undefined;
}

/** The turn's one start read: reset marker, summary, memories and the stored turns to choose from. */
export function readTurnStart(db: Database, key: TurnStartKey): Promise<TurnStart> {
  return turnStartOf(db, { ...key, turns: STORED_TURNS });
}

/**
 * Gathers what a turn's request is made of: one read — the reset marker, the summary, the
 * memories and the stored turns — beside the channel's window, then the history, the new
 * messages (with their images) and the persona around them.
 */
export async function prepareTurn(options: PrepareTurnOptions): Promise<PreparedTurn> {
  const last = options.messages.at(-1);
  if (last === undefined) throw new Error('a turn needs at least one message');
  // In a scene the last lines may be characters' replies: memories are the member's.
  const member = options.messages.findLast((message) => message.characterName === undefined);
  const author = member ?? last;
  const { settings, model } = options;
  const key: TurnStartKey = {
    channelId: last.channelId,
    scopeId: settings.scopeId,
    authorId: author.authorId,
    characterId: options.speakerId,
  };
  // Replies written again below were not in a read begun before.
  const prefetched =
    options.unrecorded?.holds(last.channelId) === true
      ? undefined
      : prefetchedRead(options.prefetched, key);
  const unrecorded =
    (await options.unrecorded?.reconcile(last.channelId, (reply) =>
      finishAssistantTurn(options.db, reply.turnId, reply.end),
    )) ?? [];
  const hold = options.hold ?? ((read) => read());
  const readNow = () => hold(() => readTurnStart(options.db, key));
  const [window, { resetAt, summary, memories, turns: read }] = await Promise.all([
    options.history.recent(last.channelId),
    prefetched === undefined ? readNow() : prefetched.then((start) => start ?? readNow()),
  ]);
  // The turn's own row, written beside this read, is no history.
  const recorded = read.filter((turn) => turn.id !== options.turnId);
  const stored = unrecorded.length === 0 ? recorded : mergeUnrecorded(recorded, unrecorded);
  return {
    history: historyBefore(options, { window, stored, resetAt }),
    summary,
    system: buildSystemPrompt({
      personaName: settings.personaName,
      personaInstructions: settings.personaInstructions,
      humanizerDegree: settings.humanizerDegree,
      language: settings.language,
      place: options.place,
    }),
    reminders: buildReminders({
      personaName: settings.personaName,
      serverMemories: memories.server,
      personalMemories: memories.personal,
      characterMemories: memories.character,
      authorName: author.authorName,
      now: options.now,
      timeZone: settings.timezone,
      isDM: last.isDM,
    }),
    finalUserParts: await newMessageParts(options),
    maxOutputTokens: Math.min(model.info.maxOutputTokens, MAX_REPLY_TOKENS),
    temperature: model.info.temperature ? settings.temperature : undefined,
    unansweredBefore: unansweredBefore(options, window, repliesIn(stored, window)),
  };
}

/**
 * The channel's unanswered tail before the messages being answered: members' messages after the
 * bot's last reply among those before them. A bot message that is no reply (a notice: a failure,
 * a rate limit) is left out of the model's context, so the messages before it still read as
 * unanswered there and count here too.
 */
export function unansweredBefore(
  options: {
    messages: readonly Pick<InboundMessage, 'id' | 'isDM'>[];
    botUserId: string;
  },
  window: readonly HistoryMessage[],
  replies: ReadonlySet<string>,
): UnansweredTail {
  const answering = new Set(options.messages.map((message) => message.id));
  const last = options.messages.at(-1);
  const lastId = last?.id ?? '';
  const before = window.filter(
    (message) => !answering.has(message.id) && compareSnowflakes(message.id, lastId) < 0,
  );
  const lastReply = before.findLastIndex((message) => replies.has(message.id));
  const tail = before.slice(lastReply + 1).filter((message) => !message.authorIsBot);
  const own = new Set(
    window.filter((message) => message.authorId === options.botUserId).map((message) => message.id),
  );
  const addressed = tail.filter(
    (message) =>
      last?.isDM === true ||
      message.mentionsBot === true ||
      own.has(message.replyToMessageId ?? ''),
  );
  return {
    ids: tail.map((message) => message.id),
    addressed: addressed.map((m) => m.id),
    texts: new Map(tail.map((message) => [message.id, labelled(message)])),
  };
}

/**
 * The Discord message ids of the bot's replies that members saw (what the model sees as its
 * own): those of stored replies, and the first message of a reply whose end was never written.
 */
export function repliesIn(
  stored: readonly ContextTurn[],
  window: readonly HistoryMessage[],
): Set<string> {
  const replies = stored.filter((turn) => turn.role === 'assistant');
  const unfinished = new Set(
    replies.filter(isUnfinishedReply).map((turn) => turn.triggerMessageId),
  );
  const ids = new Set(
    replies.filter((turn) => turn.content.trim() !== '').flatMap((turn) => turn.discordMessageIds),
  );
  for (const message of window) {
    if (message.authorIsBot && unfinished.has(message.replyToMessageId ?? null))
      ids.add(message.id);
  }
  return ids;
}

/**
 * The conversation before the messages being answered, which go last: the channel's window and
 * the stored turns since the reset marker (the turns being answered are recorded meanwhile:
 * they are left out here).
 */
export function historyBefore(
  options: {
    messages: readonly Pick<InboundMessage, 'id'>[];
    botUserId: string;
    speakerName?: string | undefined;
  },
  read: {
    window: readonly HistoryMessage[];
    stored: readonly ContextTurn[];
    resetAt: Date | undefined;
  },
): ConversationEntry[] {
  const answering = new Set(options.messages.map((message) => message.id));
  const lastId = options.messages.at(-1)?.id ?? '';
  return toConversationEntries({
    botUserId: options.botUserId,
    speakerName: options.speakerName,
    // Members' messages after the last one answered wait for the next turn. The bot's own (its
    // characters' too) are kept: its reply to the turn before is posted after the messages
    // coalesced meanwhile.
    window: read.window.filter(
      (message) =>
        !answering.has(message.id) &&
        (message.authorId === options.botUserId ||
          message.characterName !== undefined ||
          compareSnowflakes(message.id, lastId) < 0),
    ),
    storedTurns: read.stored
      .filter((turn) => turn.role === 'assistant' || !answering.has(turn.triggerMessageId ?? ''))
      .map((turn): StoredTurn => ({
        role: turn.role,
        content: turn.content,
        discordMessageIds: turn.discordMessageIds,
        createdAt: turn.createdAt.getTime(),
        status: turn.status,
        authorId: turn.authorId,
        authorName: turn.authorName,
        importance: turn.importance,
        pinned: turn.pinned,
        triggerMessageId: turn.triggerMessageId,
        unfinished: turn.unfinished,
        characterId: turn.characterId ?? null,
      })),
    after: read.resetAt?.getTime(),
  });
}

/** The stored turns with the replies still unrecorded in place of their unfinished rows. */
function mergeUnrecorded(
  recorded: readonly ContextTurn[],
  unrecorded: readonly ContextTurn[],
): ContextTurn[] {
  const held = new Set(unrecorded.map((turn) => turn.id));
  return [...recorded.filter((turn) => !held.has(turn.id)), ...unrecorded].sort(
    (a, b) => a.createdAt.getTime() - b.createdAt.getTime(),
  );
}

/** The messages being answered, each labelled with its author, with its images when the model sees. */
async function newMessageParts(options: PrepareTurnOptions): Promise<Array<TextPart | ImagePart>> {
  const parts: Array<TextPart | ImagePart> = [];
  for (const message of options.messages) {
    parts.push({ type: 'text', text: labelled(message) });
    parts.push(
      ...(await attachmentParts({
        attachments: message.attachments,
        vision: options.model.info.vision,
        download: options.download,
        logger: options.logger,
        signal: options.signal,
      })),
    );
  }
  return parts;
}

interface RequestOptions {
  prepared: PreparedTurn;
  model: ResolvedModel;
  /** The tools the model may call this turn, listed once: counted here, sent with the request. */
  toolSpecs: readonly ToolSpec[];
  dropOldest: number;
}

interface BuiltRequest {
  request: ChatRequest;
  includedHistory: number;
  availableHistory: number;
  /** At most what the prompt costs (an upper bound when it was not counted exactly). */
  promptTokens: number;
}

/**
 * The request for one attempt; `dropOldest` trims history after a context_overflow. Assembled
 * first with upper bounds of the counts (bytes: no tokenizer pass): when the whole history fits
 * even so, exact counts would give the same request. Otherwise — a conversation near the
 * model's window — the model's tokenizer is loaded (once) and the context counted exactly.
 */
export async function buildRequest(options: RequestOptions): Promise<BuiltRequest> {
  const bounded = builtByBounds(options);
  if (bounded !== undefined) return bounded;
  await loadTokenizer(options.model.info);
  return assembleWith(options, tokenCounterFor(options.model.info)).built;
}

/** The request when its whole history fits by upper bounds; undefined when counts are needed. */
function builtByBounds(options: RequestOptions): BuiltRequest | undefined {
  try {
    const { built, context } = assembleWith(options, boundCounterFor(options.model.info));
    return context.historyByBounds ? built : undefined;
  } catch (error) {
    // Too large for the window by its bounds: counted exactly, it may still fit.
    if (error instanceof UserFacingError && error.messageKey === MESSAGE_TOO_LARGE)
      return undefined;
    throw error;
  }
}

function assembleWith(
  options: RequestOptions,
  counter: TokenCounter,
): { built: BuiltRequest; context: AssembledContext } {
  const { prepared } = options;
  const context = assembleContext({
    system: prepared.system,
    summary: prepared.summary,
    history: prepared.history,
    reminders: prepared.reminders,
    finalUserParts: prepared.finalUserParts,
    dropOldest: options.dropOldest,
    budget: {
      contextWindow: options.model.info.contextWindow,
      maxOutputTokens: prepared.maxOutputTokens,
      counter,
      toolTokens: counter.countTools(options.toolSpecs),
    },
  });
  const built = {
    request: {
      model: options.model.modelId,
      system: context.system,
      messages: context.messages,
      tools: [...options.toolSpecs],
      maxOutputTokens: prepared.maxOutputTokens,
      temperature: prepared.temperature,
    },
    includedHistory: context.includedHistory,
    availableHistory: context.availableHistory,
    promptTokens: context.promptTokens,
  };
  return { built, context };
}
