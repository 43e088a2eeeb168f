import { and, desc, eq, gt, inArray, isNull, or, sql } from 'drizzle-orm';
import type { Database } from './database.ts';
import { conversationTurns, resetMarkers, type TurnStatus } from './schema.ts';

export type TurnRecord = typeof conversationTurns.$inferSelect;

export interface UserTurnInput {
  id: string;
  scopeId: string;
  channelId: string;
  authorId: string;
  authorName: string;
  messageId: string;
  content: string;
}

export async function recordUserTurn(db: Database, turn: UserTurnInput): Promise<void> {
  await db.insert(conversationTurns).values({
    id: turn.id,
    scopeId: turn.scopeId,
    channelId: turn.channelId,
    role: 'user',
    authorId: turn.authorId,
    authorName: turn.authorName,
    triggerMessageId: turn.messageId,
    discordMessageIds: [turn.messageId],
    content: turn.content,
    status: 'complete',
    completedAt: new Date(),
  });
}

export interface AssistantTurnStart {
  id: string;
  scopeId: string;
  channelId: string;
  /** The bot's user id. */
  authorId: string;
  authorName: string;
  /** The member message being answered. */
  triggerMessageId: string;
  /** The process streaming it (see instance liveness in database.ts). */
  instanceId?: string;
}

/** Marks an assistant turn as live; the row exists so a crash leaves evidence (see failAbandonedTurns). */
export async function startAssistantTurn(db: Database, turn: AssistantTurnStart): Promise<void> {
  await db.insert(conversationTurns).values({
    ...turn,
    role: 'assistant',
    status: 'streaming',
  });
}

export interface AssistantTurnEnd {
  content: string;
  discordMessageIds: readonly string[];
  status: Exclude<TurnStatus, 'streaming'>;
  metrics: Record<string, unknown>;
}

/** The one write at the end of a turn: full text, every message id, final status, metrics. */
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
      metrics: end.metrics,
      completedAt: new Date(),
    })
    .where(eq(conversationTurns.id, turnId));
}

/** The processes that own turns still marked `streaming`. */
export async function streamingInstances(db: Database): Promise<Array<string | null>> {
  const rows = await db
    .selectDistinct({ instanceId: conversationTurns.instanceId })
    .from(conversationTurns)
    .where(eq(conversationTurns.status, 'streaming'));
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

/** The newest `limit` turns of a channel after its reset marker, newest first. */
export async function recentTurns(
  db: Database,
  channelId: string,
  options: { limit: number; after?: Date },
): Promise<TurnRecord[]> {
  const inChannel = eq(conversationTurns.channelId, channelId);
  return db
    .select()
    .from(conversationTurns)
    .where(
      options.after === undefined
        ? inChannel
        : and(inChannel, gt(conversationTurns.createdAt, options.after)),
    )
    .orderBy(desc(conversationTurns.createdAt), desc(conversationTurns.id))
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
