import { and, eq, isNotNull, sql, type SQL } from 'drizzle-orm';
import { HIGH_IMPORTANCE } from '../core/importance.ts';
import type { Database } from './database.ts';
import { conversationTurns, type TurnStatus } from './schema.ts';
import { newestFirst } from './turn-repository.ts';
import { sinceReset } from './reset-marker-filter.ts';

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
  /** The character that spoke a reply (`authorName` is its name); null: the bot itself. */
  characterId?: string | null;
  /**
   * Its end was never written: a reply still `streaming`, or `failed` by the judging of a dead
   * process (an end written by its own process always carries metrics).
   */
  unfinished: boolean;
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
 * A context turn as the database sends it: one JSON array per row, in this order. The reads
 * below return ~300 rows of 11 columns on every turn; PGlite copies and decodes each field on
 * its own, which made up most of the context bench (100k stored turns: ~5 ms of reads for 11
 * fields a row against ~2 ms for one JSON field a row, measured on the bench's data).
 */
export type TurnTuple = [
  id: string,
  role: 'user' | 'assistant',
  authorId: string,
  authorName: string | null,
  triggerMessageId: string | null,
  discordMessageIds: string[],
  content: string,
  /** Microseconds since the epoch: the full precision, for ordering turns stored in one ms. */
  createdAtMicros: number,
  status: TurnStatus,
  importance: number,
  pinnedAt: string | null,
  unfinished: boolean,
  characterId: string | null,
];

const turnTuple = sql<TurnTuple>`json_build_array(${conversationTurns.id}, ${conversationTurns.role},
  ${conversationTurns.authorId}, ${conversationTurns.authorName},
  ${conversationTurns.triggerMessageId}, ${conversationTurns.discordMessageIds},
  ${conversationTurns.content},
  (extract(epoch from ${conversationTurns.createdAt}) * 1000000)::bigint, ${conversationTurns.status},
  ${conversationTurns.importance}, ${conversationTurns.pinnedAt},
  ${conversationTurns.metrics} is null, ${conversationTurns.characterId})`;

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
  const result: unknown = await db.execute(
    sql`select ${contextTurnsJson(db, channelId, limits)} as turns`,
  );
  const [row] = (result as { rows: Array<{ turns: TurnTuple[] }> }).rows;
  return contextTurnsOf(row?.turns ?? []);
}

/**
 * The three reads as one JSON array of tuples, a scalar subquery to embed in a bigger statement
 * (turnStartOf): one field to decode, however many turns.
 */
export function contextTurnsJson(db: Database, channelId: string, limits: ContextTurnLimits): SQL {
  const [recent, important, pinned] = contextTurnReads(db, channelId, limits);
  return sql`(select coalesce(json_agg(read.turn), '[]'::json)
    from (${recent} union all ${important} union all ${pinned}) as read(turn))`;
}

/** The tuples of {@link contextTurnsJson} as turns: deduplicated, oldest first. */
export function contextTurnsOf(tuples: readonly TurnTuple[]): ContextTurn[] {
  const byId = new Map<string, TurnTuple>();
  for (const turn of tuples) byId.set(turn[0], turn);
  return [...byId.values()].sort((a, b) => a[7] - b[7] || a[0].localeCompare(b[0])).map(fromTuple);
}

function fromTuple(tuple: TurnTuple): ContextTurn {
  const [id, role, authorId, authorName, triggerMessageId, discordMessageIds, content] = tuple;
  const [, , , , , , , createdAtMicros, status, importance, pinnedAt, unfinished, characterId] =
    tuple;
  return {
    id,
    role,
    authorId,
    authorName,
    triggerMessageId,
    discordMessageIds,
    content,
    createdAt: new Date(Math.floor(createdAtMicros / 1000)),
    status,
    importance,
    pinned: pinnedAt !== null,
    unfinished,
    characterId,
  };
}

/** The three reads of {@link contextTurnsSinceReset}, unexecuted (their plans are tested). */
export function contextTurnReads(db: Database, channelId: string, limits: ContextTurnLimits) {
  const read = (filter: SQL | undefined, limit: number) =>
    db
      .select({ turn: turnTuple })
      .from(conversationTurns)
      .where(
        and(
          eq(conversationTurns.channelId, channelId),
          sinceReset(db, { column: conversationTurns.createdAt, channelId }),
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
        sinceReset(db, { column: conversationTurns.createdAt, channelId }),
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
