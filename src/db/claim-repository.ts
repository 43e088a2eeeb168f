import { lt } from 'drizzle-orm';
import type { Database } from './database.ts';
import { messageClaims } from './schema.ts';

/**
 * Claims `key` (a message id, or `retry:<interaction id>`) for this process. True for exactly
 * one caller across every process sharing the database.
 */
export async function claimMessage(
  db: Database,
  key: string,
  instanceId: string,
): Promise<boolean> {
  const claimed = await db
    .insert(messageClaims)
    .values({ key, instanceId })
    .onConflictDoNothing()
    .returning({ key: messageClaims.key });
  return claimed.length === 1;
}

/** Drops claims older than `before` (Discord never redelivers an event that old). */
export async function pruneClaims(db: Database, before: Date): Promise<number> {
  const pruned = await db
    .delete(messageClaims)
    .where(lt(messageClaims.claimedAt, before))
    .returning({ key: messageClaims.key });
  return pruned.length;
}
