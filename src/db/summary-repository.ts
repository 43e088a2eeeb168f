import { and, asc, eq, gt, sql } from 'drizzle-orm';
import type { Database } from './database.ts';
import { channelSummaries, conversationTurns, resetMarkers } from './schema.ts';

export type ChannelSummary = typeof channelSummaries.$inferSelect;

/**
 * The channel's rolling summary, if it covers turns after the last reset (a summary written
 * by a job that raced a /reset covers only older turns, and is ignored).
 */
export async function summaryOf(
  db: Database,
  channelId: string,
): Promise<ChannelSummary | undefined> {
  const resetAt = db
    .select({ resetAt: resetMarkers.resetAt })
    .from(resetMarkers)
    .where(eq(resetMarkers.channelId, channelId));
  const [row] = await db
    .select()
    .from(channelSummaries)
    .where(
      and(
        eq(channelSummaries.channelId, channelId),
        sql`${channelSummaries.coveredUntil} > coalesce((${resetAt}), '-infinity'::timestamptz)`,
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
  const resetAt = db
    .select({ resetAt: resetMarkers.resetAt })
    .from(resetMarkers)
    .where(eq(resetMarkers.channelId, summary.channelId));
  const written = await db
    .insert(channelSummaries)
    .values({ ...values, updatedAt: new Date() })
    .onConflictDoUpdate({
      target: channelSummaries.channelId,
      set: { ...values, updatedAt: new Date() },
      setWhere:
        previousCoveredUntil === undefined
          ? sql`${channelSummaries.coveredUntil} <= coalesce((${resetAt}), '-infinity'::timestamptz)`
          : eq(channelSummaries.coveredUntil, previousCoveredUntil),
    })
    .returning({ channelId: channelSummaries.channelId });
  return written.length > 0;
}

/** /reset: the summary goes with the history it summarised. */
export async function clearSummary(db: Database, channelId: string): Promise<void> {
  await db.delete(channelSummaries).where(eq(channelSummaries.channelId, channelId));
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
  const resetAt = db
    .select({ resetAt: resetMarkers.resetAt })
    .from(resetMarkers)
    .where(eq(resetMarkers.channelId, options.channelId));
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
        eq(conversationTurns.channelId, options.channelId),
        sql`${conversationTurns.status} in ('complete', 'stopped')`,
        sql`${conversationTurns.createdAt} > coalesce((${resetAt}), '-infinity'::timestamptz)`,
        options.after === undefined ? undefined : gt(conversationTurns.createdAt, options.after),
      ),
    )
    .orderBy(asc(conversationTurns.createdAt), asc(conversationTurns.id))
    .limit(options.limit);
}
