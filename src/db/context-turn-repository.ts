import { and, eq, isNotNull, sql, type SQL } from 'drizzle-orm';
import { HIGH_IMPORTANCE } from '../core/importance.ts';
import type { Database } from './database.ts';
import { conversationTurns, resetMarkers, type TurnStatus } from './schema.ts';
import { newestFirst } from './turn-repository.ts';

/** What context assembly needs of a stored turn (either role). */
export interface ContextTurn {
  id: string;
  role: 'user' | 'assistant';
  authorId: string;
  authorName: string | null;
  triggerMessageId: string | null;
  discordMessageIds: string[];
  content: string;
  createdAt: Date;
  status: TurnStatus;
  importance: number;
  pinned: boolean;
}

export interface ContextTurnLimits {
  /** The newest turns, whatever their importance. */
  recent: number;
  /** The newest turns at or above HIGH_IMPORTANCE (served by a partial index). */
  important: number;
  /** The newest pinned turns (served by a partial index). */
  pinned: number;
}

/**
 * The stored turns a context may choose from, since the channel's reset marker: the newest,
 * the newest important ones and the newest pinned ones, deduplicated, oldest first. Three
 * index-bounded reads whatever the channel's length (the bench runs it on 100k turns), sent
 * as one statement: a round trip costs more than the few rows two of the reads share.
 */
export async function contextTurnsSinceReset(
  db: Database,
  channelId: string,
  limits: ContextTurnLimits,
): Promise<ContextTurn[]> {
  const [recent, important, pinned] = contextTurnReads(db, channelId, limits);
  const rows = await recent.unionAll(important).unionAll(pinned);
  const byId = new Map<string, ContextTurn>();
  for (const row of rows) {
    const { pinnedAt, ...turn } = row;
    byId.set(row.id, { ...turn, pinned: pinnedAt !== null });
  }
  return [...byId.values()].sort(
    (a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id),
  );
}

/** The three reads of {@link contextTurnsSinceReset}, unexecuted (their plans are tested). */
export function contextTurnReads(db: Database, channelId: string, limits: ContextTurnLimits) {
  const resetAt = db
    .select({ resetAt: resetMarkers.resetAt })
    .from(resetMarkers)
    .where(eq(resetMarkers.channelId, channelId));
  const read = (filter: SQL | undefined, limit: number) =>
    db
      .select({
        id: conversationTurns.id,
        role: conversationTurns.role,
        authorId: conversationTurns.authorId,
        authorName: conversationTurns.authorName,
        triggerMessageId: conversationTurns.triggerMessageId,
        discordMessageIds: conversationTurns.discordMessageIds,
        content: conversationTurns.content,
        createdAt: conversationTurns.createdAt,
        status: conversationTurns.status,
        importance: conversationTurns.importance,
        pinnedAt: conversationTurns.pinnedAt,
      })
      .from(conversationTurns)
      .where(
        and(
          eq(conversationTurns.channelId, channelId),
          sql`${conversationTurns.createdAt} > coalesce((${resetAt}), '-infinity'::timestamptz)`,
          filter,
        ),
      )
      // Walks the index (partial ones too) and stops at the limit: see newestFirst.
      .orderBy(...newestFirst())
      .limit(limit);
  return [
    read(undefined, limits.recent),
    // A literal, so the planner matches the partial index's predicate.
    read(
      sql`${conversationTurns.importance} >= ${sql.raw(String(HIGH_IMPORTANCE))}`,
      limits.important,
    ),
    read(isNotNull(conversationTurns.pinnedAt), limits.pinned),
  ] as const;
}

/** Pins (or unpins) the turn stored for a Discord message of this channel; false when none. */
export async function setTurnPinned(
  db: Database,
  options: { channelId: string; messageId: string; pinnedBy: string | undefined },
): Promise<boolean> {
  const rows = await db
    .update(conversationTurns)
    .set(
      options.pinnedBy === undefined
        ? { pinnedAt: null, pinnedBy: null }
        : { pinnedAt: sql`now()`, pinnedBy: options.pinnedBy },
    )
    .where(
      and(
        eq(conversationTurns.channelId, options.channelId),
        sql`${options.messageId} = any(${conversationTurns.discordMessageIds})`,
      ),
    )
    .returning({ id: conversationTurns.id });
  return rows.length > 0;
}

export interface PinnedTurn {
  id: string;
  role: 'user' | 'assistant';
  authorName: string | null;
  content: string;
  discordMessageIds: string[];
  pinnedBy: string | null;
  createdAt: Date;
}

/** A channel's pinned turns since its reset marker, oldest first. */
export async function pinnedTurns(db: Database, channelId: string): Promise<PinnedTurn[]> {
  const resetAt = db
    .select({ resetAt: resetMarkers.resetAt })
    .from(resetMarkers)
    .where(eq(resetMarkers.channelId, channelId));
  return db
    .select({
      id: conversationTurns.id,
      role: conversationTurns.role,
      authorName: conversationTurns.authorName,
      content: conversationTurns.content,
      discordMessageIds: conversationTurns.discordMessageIds,
      pinnedBy: conversationTurns.pinnedBy,
      createdAt: conversationTurns.createdAt,
    })
    .from(conversationTurns)
    .where(
      and(
        eq(conversationTurns.channelId, channelId),
        isNotNull(conversationTurns.pinnedAt),
        sql`${conversationTurns.createdAt} > coalesce((${resetAt}), '-infinity'::timestamptz)`,
      ),
    )
    .orderBy(conversationTurns.createdAt);
}

/** Unpins one turn of a channel by its id; false when it was not pinned there. */
export async function unpinTurn(
  db: Database,
  options: { channelId: string; turnId: string },
): Promise<boolean> {
  const rows = await db
    .update(conversationTurns)
    .set({ pinnedAt: null, pinnedBy: null })
    .where(
      and(
        eq(conversationTurns.channelId, options.channelId),
        eq(conversationTurns.id, options.turnId),
        isNotNull(conversationTurns.pinnedAt),
      ),
    )
    .returning({ id: conversationTurns.id });
  return rows.length > 0;
}
