import { and, asc, eq, gt, sql } from 'drizzle-orm';
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
        eq(conversationTurns.channelId, options.channelId),
        sql`${conversationTurns.status} in ('complete', 'stopped')`,
        sinceReset(db, { column: conversationTurns.createdAt, channelId: options.channelId }),
        options.after === undefined ? undefined : gt(conversationTurns.createdAt, options.after),
      ),
    )
    .orderBy(asc(conversationTurns.createdAt), asc(conversationTurns.id))
    .limit(options.limit);
}
