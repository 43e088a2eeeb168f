import type { ChatRequest, ImagePart, TextPart } from '../../core/chat.ts';
import type { Logger } from '../../core/logger.ts';
import type { ScopeSettings } from '../../core/settings.ts';
import type { ToolContext, ToolExecutor } from '../../core/tool.ts';
import type { Database } from '../../db/database.ts';
import {
  contextTurnsSinceReset,
  type ContextTurnLimits,
} from '../../db/context-turn-repository.ts';
import { turnStartOf } from '../../db/turn-start-repository.ts';
import type { ResolvedModel } from '../../providers/provider-factory.ts';
import type { ModelInfo } from '../../providers/model-catalog.ts';
import { createTokenCounter, type TokenCounter } from '../../providers/token-counter.ts';
import { compareSnowflakes, type ChannelHistory } from './channel-history.ts';
import { assembleContext } from './context-builder.ts';
import {
  labelled,
  toConversationEntries,
  type ConversationEntry,
  type StoredTurn,
} from './conversation-entries.ts';
import { buildReminders, buildSystemPrompt, type PersonaContext } from './persona.ts';
import { attachmentParts, type Download } from './trigger-attachments.ts';
import type { Trigger } from '../intake/trigger.ts';

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
  /** The channel's rolling summary (seed 001), if any. */
  summary: string | undefined;
  reminders: string[];
  finalUserParts: Array<TextPart | ImagePart>;
  maxOutputTokens: number;
  temperature: number | undefined;
}

/** One counter (and its per-text cache) per model: history texts repeat from turn to turn. */
const counters = new WeakMap<ModelInfo, TokenCounter>();
function counterFor(info: ModelInfo): TokenCounter {
  let counter = counters.get(info);
  if (counter === undefined) {
    counter = createTokenCounter(info);
    counters.set(info, counter);
  }
  return counter;
}

/**
 * Gathers what a turn's request is made of: two reads, sent at once — the stored turns, and the
 * reset marker with the summary and the memories.
 */
export async function prepareTurn(options: {
  db: Database;
  history: ChannelHistory;
  settings: ScopeSettings;
  model: ResolvedModel;
  batch: readonly Trigger[];
  botUserId: string;
  place: PersonaContext['place'];
  now: Date;
  download: Download;
  logger: Logger;
  signal: AbortSignal;
}): Promise<PreparedTurn> {
  const last = options.batch.at(-1);
  if (last === undefined) throw new Error('a turn needs at least one trigger');
  const channelId = last.message.channelId;
  const [window, { resetAt, summary, memories }, stored] = await Promise.all([
    options.history.recent(channelId),
    turnStartOf(options.db, {
      channelId,
      scopeId: options.settings.scopeId,
      authorId: last.message.authorId,
    }),
    contextTurnsSinceReset(options.db, channelId, STORED_TURNS),
  ]);
  const triggerIds = new Set(options.batch.map((trigger) => trigger.message.id));
  const history = toConversationEntries({
    botUserId: options.botUserId,
    // Only what came before the message(s) being answered, which go last.
    window: window.filter(
      (message) =>
        !triggerIds.has(message.id) && compareSnowflakes(message.id, last.message.id) < 0,
    ),
    storedTurns: stored
      // The turns being answered are recorded meanwhile; they go last, not in the history.
      .filter((turn) => turn.role === 'assistant' || !triggerIds.has(turn.triggerMessageId ?? ''))
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
      })),
    after: resetAt?.getTime(),
  });
  const finalUserParts: Array<TextPart | ImagePart> = [];
  for (const trigger of options.batch) {
    finalUserParts.push({ type: 'text', text: labelled(trigger.message) });
    finalUserParts.push(
      ...(await attachmentParts({
        attachments: trigger.message.attachments,
        vision: options.model.info.vision,
        download: options.download,
        logger: options.logger,
        signal: options.signal,
      })),
    );
  }
  const { settings } = options;
  return {
    history,
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
      authorName: last.message.authorName,
      now: options.now,
      timeZone: settings.timezone,
      isDM: last.message.isDM,
    }),
    finalUserParts,
    maxOutputTokens: Math.min(options.model.info.maxOutputTokens, MAX_REPLY_TOKENS),
    temperature: options.model.info.temperature ? settings.temperature : undefined,
  };
}

/** The request for one attempt; `dropOldest` trims history after a context_overflow. */
export function buildRequest(options: {
  prepared: PreparedTurn;
  model: ResolvedModel;
  tools: ToolExecutor;
  toolContext: ToolContext;
  dropOldest: number;
}): {
  request: ChatRequest;
  includedHistory: number;
  availableHistory: number;
  promptTokens: number;
} {
  const counter = counterFor(options.model.info);
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
      toolTokens: counter.countTools(options.tools.specs(options.toolContext)),
    },
  });
  return {
    request: {
      model: options.model.modelId,
      system: context.system,
      messages: context.messages,
      tools: [],
      maxOutputTokens: prepared.maxOutputTokens,
      ...(prepared.temperature === undefined ? {} : { temperature: prepared.temperature }),
    },
    includedHistory: context.includedHistory,
    availableHistory: context.availableHistory,
    promptTokens: context.promptTokens,
  };
}
