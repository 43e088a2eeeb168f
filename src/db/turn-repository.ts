import { and, eq, gt, inArray, isNotNull, isNull, or, sql, type SQL } from 'drizzle-orm';
import { importanceOf } from '../core/importance.ts';
import type { Database } from './database.ts';
import { conversationTurns, resetMarkers, type TurnStatus } from './schema.ts';
import { sinceReset } from './reset-marker-filter.ts';
import { StatementCache } from './statement-cache.ts';
import { writesInOneStatement } from './writes-in-one-statement.ts';

export type TurnRecord = typeof conversationTurns.$inferSelect;

export interface UserTurnInput {
  id: string;
  scopeId: string;
  channelId: string;
  authorId: string;
  authorName: string;
  messageId: string;
  content: string;
  /** Pinned by this member at once (a message pinned before the bot stored it). */
  pinnedBy?: string | undefined;
}

const UUID_PATTERN = /^[\da-f]{8}-[\da-f]{4}-[\da-f]{4}-[\da-f]{4}-[\da-f]{12}$/i;

/**
 * The first user turns of a conversation (after a /reset) are pinned automatically: they usually
 * say what the conversation is about.
 */
export const AUTO_PINNED_USER_TURNS = 3;

/**
 * Newest turns first, NULLS LAST as conversation_turns_channel_recent_idx is built: plain DESC
 * means NULLS FIRST in PostgreSQL, which no index of the table serves, so a limited read would
 * sort the whole channel instead of walking the index and stopping at its limit.
 */
export function newestFirst(): [SQL, SQL] {
  return [
    sql`${conversationTurns.createdAt} desc nulls last`,
    sql`${conversationTurns.id} desc nulls last`,
  ];
}

/**
 * Stores a member's turn with its importance; one of the first {@link AUTO_PINNED_USER_TURNS}
 * user turns since the channel's reset marker is pinned in the same statement.
 */
export async function recordUserTurn(db: Database, turn: UserTurnInput): Promise<void> {
  await userTurnInsert(db, userTurnRow(turn));
}

/** A user turn's row: the input and what is worked out from it before the statement is built. */
interface UserTurnRow extends UserTurnInput {
  importance: number;
  discordMessageIds: string[];
  completedAt: Date;
}

function userTurnRow(turn: UserTurnInput): UserTurnRow {
  return {
    ...turn,
    importance: importanceOf('user', turn.content),
    discordMessageIds: [turn.messageId],
    completedAt: new Date(),
  };
}

/** Looks at no value but whether `pinnedBy` is set (the opening's statement cache relies on it). */
function userTurnInsert(db: Database, turn: UserTurnRow) {
  const earlier = db
    .select({ one: sql`1` })
    .from(conversationTurns)
    .where(
      and(
        eq(conversationTurns.channelId, turn.channelId),
        eq(conversationTurns.role, 'user'),
        sinceReset(db, { column: conversationTurns.createdAt, channelId: turn.channelId }),
      ),
    )
    .limit(AUTO_PINNED_USER_TURNS);
  const isEarly = sql`(select count(*) from (${earlier}) as early) < ${AUTO_PINNED_USER_TURNS}`;
  return db.insert(conversationTurns).values({
    importance: turn.importance,
    pinnedAt: turn.pinnedBy === undefined ? sql`case when ${isEarly} then now() end` : sql`now()`,
    pinnedBy: turn.pinnedBy ?? sql`case when ${isEarly} then 'auto' end`,
    id: turn.id,
    scopeId: turn.scopeId,
    channelId: turn.channelId,
    role: 'user',
    authorId: turn.authorId,
    authorName: turn.authorName,
    triggerMessageId: turn.messageId,
    discordMessageIds: turn.discordMessageIds,
    content: turn.content,
    status: 'complete',
    completedAt: turn.completedAt,
  });
}

export interface AssistantTurnStart {
  id: string;
  scopeId: string;
  channelId: string;
  /** The bot's user id. */
  authorId: string;
  /** The bot's name, or its character's when one speaks. */
  authorName: string;
  /** The character speaking, if one does. */
  characterId?: string | undefined;
  /** The member message being answered. */
  triggerMessageId: string;
  /** The process streaming it (see instance liveness in database.ts). */
  instanceId?: string | undefined;
}

/**
 * Marks an assistant turn as live; the row exists so a crash leaves evidence (see
 * failAbandonedTurns). A turn keeps one id through all its attempts: starting it again (the
 * attempt after a context overflow, which sent nothing) makes the same row live again, empty.
 */
export async function startAssistantTurn(db: Database, turn: AssistantTurnStart): Promise<void> {
  await assistantStartUpsert(db, turn);
}

/**
 * A turn's opening in one statement: the member's message as a user turn (none for a turn that
 * answers a message stored already) and the reply's `streaming` row (as startAssistantTurn).
 * One statement gives both one created_at, so the reply sorts after the message by id (intake
 * minted the message's id before the turn's). It may be sent again: the reply's row is an
 * upsert, and the user turn an insert that keeps an earlier write of itself.
 */
export async function openTurn(
  db: Database,
  opening: { userTurn: UserTurnInput | undefined; reply: AssistantTurnStart },
): Promise<void> {
  const { userTurn, reply } = opening;
  const { characterId, instanceId } = reply;
  const user = userTurn === undefined ? null : userTurnRow(userTurn);
  await TURN_OPENING.execute(db, {
    // Which parts the statement has; every other difference between turns is a value.
    shape: [
      user === null ? '-' : user.pinnedBy === undefined ? 'user' : 'user pinned',
      characterId === undefined ? '-' : 'character',
      instanceId === undefined ? '-' : 'instance',
    ].join(' '),
    values: { user, reply },
    build: (slots) => {
      const start = assistantStartUpsert(db, {
        ...slots.reply,
        characterId: characterId === undefined ? undefined : slots.reply.characterId,
        instanceId: instanceId === undefined ? undefined : slots.reply.instanceId,
      });
      if (user === null || slots.user === null) return writesInOneStatement([start]);
      const userInsert = userTurnInsert(db, {
        ...slots.user,
        pinnedBy: user.pinnedBy === undefined ? undefined : slots.user.pinnedBy,
      });
      return writesInOneStatement([
        userInsert.onConflictDoNothing({ target: conversationTurns.id }),
        start,
      ]);
    },
  });
}

/** Every turn opens with this statement: built once per shape. */
const TURN_OPENING = new StatementCache<{
  user: UserTurnRow | null;
  reply: AssistantTurnStart;
}>();

function assistantStartUpsert(db: Database, turn: AssistantTurnStart) {
  return db
    .insert(conversationTurns)
    .values({ ...turn, role: 'assistant', status: 'streaming' })
    .onConflictDoUpdate({
      target: conversationTurns.id,
      set: {
        status: 'streaming',
        content: '',
        discordMessageIds: [],
        metrics: null,
        completedAt: null,
        instanceId: turn.instanceId ?? null,
      },
    });
}

/**
 * Removes a turn's `streaming` row whose stream never ran (the turn was stopped or failed while
 * its context was assembled): nothing was said, so nothing is recorded, as if never started.
 */
export async function discardUnstartedTurn(db: Database, id: string): Promise<void> {
  await db
    .delete(conversationTurns)
    .where(and(eq(conversationTurns.id, id), eq(conversationTurns.status, 'streaming')));
}

/**
 * A line a character said of its own accord, not in answer to a message (its greeting when it
 * comes on stage): stored whole as a complete reply under the character, so the context shows
 * it as that character's words and /history and /export name it.
 */
export async function recordSpokenLine(
  db: Database,
  line: {
    id: string;
    scopeId: string;
    channelId: string;
    /** The bot's user id (every reply's author); the character is `characterId`. */
    authorId: string;
    characterName: string;
    characterId: string;
    messageId: string;
    content: string;
  },
): Promise<void> {
  await db
    .insert(conversationTurns)
    .values({
      id: line.id,
      scopeId: line.scopeId,
      channelId: line.channelId,
      role: 'assistant',
      authorId: line.authorId,
      authorName: line.characterName,
      characterId: line.characterId,
      discordMessageIds: [line.messageId],
      content: line.content,
      status: 'complete',
      importance: importanceOf('assistant', line.content),
      metrics: {},
      completedAt: new Date(),
    })
    .onConflictDoNothing({ target: conversationTurns.id });
}

export interface AssistantTurnEnd {
  content: string;
  discordMessageIds: readonly string[];
  status: Exclude<TurnStatus, 'streaming'>;
  metrics: Record<string, unknown>;
}

/**
 * The one write at the end of a turn: full text, every message id, final status, metrics. It
 * replaces whatever status the row has: a live process's turn failed by a peer that thought it
 * dead (see failAbandonedTurns) ends up with what was really delivered.
 */
export async function finishAssistantTurn(
  db: Database,
  turnId: string,
  end: AssistantTurnEnd,
): Promise<void> {
  await db
    .update(conversationTurns)
    .set({
      content: end.content,
      discordMessageIds: [...end.discordMessageIds],
      status: end.status,
      importance: importanceOf('assistant', end.content),
      metrics: end.metrics,
      completedAt: new Date(),
    })
    .where(eq(conversationTurns.id, turnId));
}

/**
 * What members saw of a reply whose process died before writing its end (its messages as they
 * stand in the channel), kept as the turn's content: `failed` when the crash cut the reply,
 * `complete` when the reply had ended and only its record was missing. Only a turn with nothing
 * recorded is filled, so a reply whose end was written keeps what its process knew.
 */
export async function recordCutReply(
  db: Database,
  cut: {
    triggerMessageId: string;
    content: string;
    discordMessageIds: readonly string[];
    /** The reply had ended (only its record was missing): complete, not cut. */
    ended?: boolean;
  },
): Promise<number> {
  const recorded = await db
    .update(conversationTurns)
    .set({
      content: cut.content,
      discordMessageIds: [...cut.discordMessageIds],
      status: cut.ended === true ? 'complete' : 'failed',
      importance: importanceOf('assistant', cut.content),
      completedAt: new Date(),
    })
    .where(
      and(
        repliesTo(cut.triggerMessageId),
        inArray(conversationTurns.status, ['streaming', 'failed']),
        eq(conversationTurns.content, ''),
      ),
    )
    .returning({ id: conversationTurns.id });
  return recorded.length;
}

/** The processes that own turns still marked `streaming`. */
export async function streamingInstances(db: Database): Promise<Array<string | null>> {
  const rows = await db
    .selectDistinct({ instanceId: conversationTurns.instanceId })
    .from(conversationTurns)
    .where(eq(conversationTurns.status, 'streaming'));
  return rows.map((row) => row.instanceId);
}

/**
 * The processes that own a channel's turns still marked `streaming` (null: a turn without an
 * owner), or with `turnId` that one turn's. A process that did not hear a stop's answer asks
 * this before it says nothing was live (CrossProcessStops).
 */
export async function streamingOwnersIn(
  db: Database,
  query: { channelId: string; turnId?: string | undefined },
): Promise<Array<string | null>> {
  // Turn ids are UUIDs (the column's type): another id (a forged button) names no turn.
  if (query.turnId !== undefined && !UUID_PATTERN.test(query.turnId)) return [];
  const rows = await db
    .select({ instanceId: conversationTurns.instanceId })
    .from(conversationTurns)
    .where(
      and(
        eq(conversationTurns.status, 'streaming'),
        eq(conversationTurns.channelId, query.channelId),
        query.turnId === undefined ? undefined : eq(conversationTurns.id, query.turnId),
      ),
    );
  return rows.map((row) => row.instanceId);
}

/** Fails the streaming turns of processes known to be dead (null: turns without an owner). */
export async function failStreamingTurnsOf(
  db: Database,
  instanceIds: ReadonlyArray<string | null>,
): Promise<number> {
  const named = instanceIds.filter((id): id is string => id !== null);
  const owners = [
    ...(named.length > 0 ? [inArray(conversationTurns.instanceId, named)] : []),
    ...(instanceIds.includes(null) ? [isNull(conversationTurns.instanceId)] : []),
  ];
  if (owners.length === 0) return 0;
  const failed = await db
    .update(conversationTurns)
    .set({ status: 'failed', completedAt: sql`now()` })
    .where(and(eq(conversationTurns.status, 'streaming'), or(...owners)))
    .returning({ id: conversationTurns.id });
  return failed.length;
}

/** The newest `limit` turns of a channel after its reset marker (of one role), newest first. */
export async function recentTurns(
  db: Database,
  channelId: string,
  options: { limit: number; after?: Date | undefined; role?: TurnRecord['role'] },
): Promise<TurnRecord[]> {
  return db
    .select()
    .from(conversationTurns)
    .where(
      and(
        eq(conversationTurns.channelId, channelId),
        options.after === undefined ? undefined : gt(conversationTurns.createdAt, options.after),
        options.role === undefined ? undefined : eq(conversationTurns.role, options.role),
      ),
    )
    .orderBy(...newestFirst())
    .limit(options.limit);
}

export async function setResetMarker(
  db: Database,
  marker: { channelId: string; scopeId: string; resetBy: string; resetAt?: Date },
): Promise<Date> {
  const resetAt = marker.resetAt ?? new Date();
  await db
    .insert(resetMarkers)
    .values({ ...marker, resetAt })
    .onConflictDoUpdate({
      target: resetMarkers.channelId,
      set: { resetAt, resetBy: marker.resetBy, scopeId: marker.scopeId },
    });
  return resetAt;
}

export async function resetMarkerOf(db: Database, channelId: string): Promise<Date | undefined> {
  const [row] = await db
    .select({ resetAt: resetMarkers.resetAt })
    .from(resetMarkers)
    .where(eq(resetMarkers.channelId, channelId));
  return row?.resetAt;
}

/**
 * A member deleted their message: its stored user turn goes too, so no later context or
 * `/export` shows what they took back. Returns how many rows were removed.
 */
export async function forgetUserMessage(db: Database, messageId: string): Promise<number> {
  const removed = await db
    .delete(conversationTurns)
    .where(
      and(eq(conversationTurns.role, 'user'), eq(conversationTurns.triggerMessageId, messageId)),
    )
    .returning({ id: conversationTurns.id });
  return removed.length;
}

/** A member edited their message: the stored user turn says what the message says now. */
export async function reviseUserMessage(
  db: Database,
  messageId: string,
  content: string,
): Promise<number> {
  const revised = await db
    .update(conversationTurns)
    .set({ content, importance: importanceOf('user', content) })
    .where(
      and(eq(conversationTurns.role, 'user'), eq(conversationTurns.triggerMessageId, messageId)),
    )
    .returning({ id: conversationTurns.id });
  return revised.length;
}

/**
 * Whether a reply to this member message ended `failed` by its own turn (its end was written:
 * a provider failure, a delivery failure) — not one a restart left streaming and maintenance
 * marked failed (that one has no metrics). Its member is owed the failure's notice.
 */
export async function replyFailedFor(db: Database, messageId: string): Promise<boolean> {
  const rows = await db
    .select({ id: conversationTurns.id })
    .from(conversationTurns)
    .where(
      and(
        repliesTo(messageId),
        eq(conversationTurns.status, 'failed'),
        isNotNull(conversationTurns.metrics),
      ),
    )
    .limit(1);
  return rows.length > 0;
}

/** The ids of the replies (assistant turns) to this member message: a Stop button names one. */
export async function replyTurnIdsFor(db: Database, messageId: string): Promise<string[]> {
  const rows = await db
    .select({ id: conversationTurns.id })
    .from(conversationTurns)
    .where(repliesTo(messageId));
  return rows.map((row) => row.id);
}

/** The rows of the replies (assistant turns) to a member message. */
export function repliesTo(messageId: string) {
  return and(
    eq(conversationTurns.triggerMessageId, messageId),
    eq(conversationTurns.role, 'assistant'),
  );
}

/**
 * Whether a turn answering this member message was started: its user turn is recorded, or a
 * reply's row names it as its trigger (the user turn is written beside the reply's start and may
 * be missing after a crash).
 */
export async function turnStartedFor(db: Database, messageId: string): Promise<boolean> {
  const rows = await db
    .select({ id: conversationTurns.id })
    .from(conversationTurns)
    .where(eq(conversationTurns.triggerMessageId, messageId))
    .limit(1);
  return rows.length > 0;
}
