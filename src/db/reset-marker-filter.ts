import { eq, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import type { Database } from './database.ts';
import { resetMarkers } from './schema.ts';

/**
 * A channel's last `/reset` as a scalar subquery, `-infinity` for a channel never reset: every
 * read of "the conversation since the reset" compares against this one expression, inside the
 * statement, so a reset racing the read is seen whole or not at all.
 */
export function resetAtOf(db: Database, channelId: string): SQL {
  const resetAt = db
    .select({ resetAt: resetMarkers.resetAt })
    .from(resetMarkers)
    .where(eq(resetMarkers.channelId, channelId));
  return sql`coalesce((${resetAt}), '-infinity'::timestamptz)`;
}

/** `column > the channel's reset marker`: the rows of the conversation since its last reset. */
export function sinceReset(db: Database, filter: { column: AnyColumn; channelId: string }): SQL {
  return sql`${filter.column} > ${resetAtOf(db, filter.channelId)}`;
}
