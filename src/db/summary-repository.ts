import { and, asc, count, eq, gt, sql, type SQL } from 'drizzle-orm';
import type { Database } from './database.ts';
import { channelSummaries, conversationTurns } from './schema.ts';
import { resetAtOf, sinceReset } from './reset-marker-filter.ts';

export type ChannelSummary = typeof channelSummaries.$inferSelect;

/**
 * The channel's rolling summary, if it covers turns after the last reset (a summary written
 * by a job that raced a /reset covers only older turns, and is ignored).
 */
export async function summaryOf(
  db: Database,
  channelId: string,
): Promise<ChannelSummary | undefined> {
  const [row] = await db
    .select()
    .from(channelSummaries)
    .where(
      and(
        eq(channelSummaries.channelId, channelId),
        sinceReset(db, { column: channelSummaries.coveredUntil, channelId }),
      ),
    );
  return row;
}

/**
 * Writes the new summary only if it still extends the one it was built on (two processes may
 * race): returns false when the write lost. A summary from before a /reset is replaced.
 */
export async function saveSummary(
  db: Database,
  summary: {
    channelId: string;
    scopeId: string;
    content: string;
    coveredUntil: Date;
    coveredTurns: number;
    previousCoveredUntil: Date | undefined;
  },
): Promise<boolean> {
  const { previousCoveredUntil, ...values } = summary;
  const written = await db
    .insert(channelSummaries)
    .values({ ...values, updatedAt: new Date() })
    .onConflictDoUpdate({
      target: channelSummaries.channelId,
      set: { ...values, updatedAt: new Date() },
      setWhere:
        previousCoveredUntil === undefined
          ? sql`${channelSummaries.coveredUntil} <= ${resetAtOf(db, summary.channelId)}`
          : eq(channelSummaries.coveredUntil, previousCoveredUntil),
    })
    .returning({ channelId: channelSummaries.channelId });
  return written.length > 0;
}

/** /reset: the summary goes with the history it summarised. */
export async function clearSummary(db: Database, channelId: string): Promise<void> {
  await db.delete(channelSummaries).where(eq(channelSummaries.channelId, channelId));
}

/**
 * How many complete turns the channel has beyond its summary's coverage (or its reset marker),
 * counted up to `atMost`: the summarizer's check after every turn, which reads no turn. The
 * summary is looked up inside the statement, as {@link summaryOf} finds it.
 */
export async function unsummarizedTurns(
  db: Database,
  options: { channelId: string; atMost: number },
): Promise<number> {
  const coverage = db
    .select({ coveredUntil: channelSummaries.coveredUntil })
    .from(channelSummaries)
    .where(
      and(
        eq(channelSummaries.channelId, options.channelId),
        sinceReset(db, { column: channelSummaries.coveredUntil, channelId: options.channelId }),
      ),
    );
  const pending = db
    .select({ one: sql`1` })
    .from(conversationTurns)
    .where(
      and(
        completeTurnsOf(db, options.channelId),
        sql`${conversationTurns.createdAt} > coalesce((${coverage}), '-infinity'::timestamptz)`,
      ),
    )
    .limit(options.atMost)
    .as('pending');
  const [row] = await db.select({ turns: count() }).from(pending);
  return row?.turns ?? 0;
}

/** A stored turn as the summarizer reads it. */
export interface TurnToSummarize {
  role: 'user' | 'assistant';
  authorName: string | null;
  content: string;
  createdAt: Date;
}

/**
 * The complete turns after `after` (the summary's coverage, or the reset marker), oldest
 * first, at most `limit`, plus how many such turns exist in all (the backlog).
 */
export async function turnsAfter(
  db: Database,
  options: { channelId: string; after: Date | undefined; limit: number },
): Promise<TurnToSummarize[]> {
  return db
    .select({
      role: conversationTurns.role,
      authorName: conversationTurns.authorName,
      content: conversationTurns.content,
      createdAt: conversationTurns.createdAt,
    })
    .from(conversationTurns)
    .where(
      and(
        completeTurnsOf(db, options.channelId),
        options.after === undefined ? undefined : gt(conversationTurns.createdAt, options.after),
      ),
    )
    .orderBy(asc(conversationTurns.createdAt), asc(conversationTurns.id))
    .limit(options.limit);
}

/** The channel's turns a summary may fold in: complete or stopped, since its reset marker. */
function completeTurnsOf(db: Database, channelId: string): SQL | undefined {
  return and(
    eq(conversationTurns.channelId, channelId),
    sql`${conversationTurns.status} in ('complete', 'stopped')`,
    sinceReset(db, { column: conversationTurns.createdAt, channelId }),
  );
}
