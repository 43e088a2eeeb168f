import { lt, sql } from 'drizzle-orm';
import type { Database } from './database.ts';
import { memberTurns } from './schema.ts';

export type MemberTurnVerdict = { allowed: true } | { allowed: false; retryAfterMs: number };

export interface MemberTurnRequest {
  /** The message id, or `retry:<interaction id>`: the same key is counted once. */
  key: string;
  scopeId: string;
  memberId: string;
  /** Turns allowed in any window of `windowMs`. */
  perWindow: number;
  windowMs: number;
  /**
   * When the turn is taken. Absent: the database's clock — hosts may disagree by minutes, and
   * one window shared by every process needs one clock. Tests pass a time to walk the window.
   */
  now?: Date;
}

/**
 * Records a member's turn and decides whether it is within the limit, across every process:
 * allowed when fewer than `perWindow` counted turns of the member lie in the window before
 * `now`. Decided once per key, under a lock on the member: the first process to ask about a
 * message decides, every other one reads that verdict (a refused turn stays stored, not
 * counted, so it uses none of the allowance). One statement: the database function
 * `take_member_turn` (migrations/0008) runs the lock, the insert, the count and, for a refusal,
 * the time until the window has room, in one round trip.
 */
export async function takeMemberTurn(
  db: Database,
  request: MemberTurnRequest,
): Promise<MemberTurnVerdict> {
  const at =
    request.now === undefined
      ? sql`clock_timestamp()`
      : sql`${request.now.toISOString()}::timestamptz`;
  const result: unknown = await db.execute(sql`
    select allowed, retry_after_ms from take_member_turn(${request.key}, ${request.scopeId},
      ${request.memberId}, ${at},
      ${request.perWindow}::integer, ${request.windowMs}::integer)`);
  const [verdict] = (result as { rows: { allowed: boolean; retry_after_ms: number }[] }).rows;
  if (verdict === undefined) throw new Error('take_member_turn returned no verdict');
  return verdict.allowed
    ? { allowed: true }
    : { allowed: false, retryAfterMs: Number(verdict.retry_after_ms) };
}

/** Forgets turns older than `before` (they are outside every window). Returns how many. */
export async function pruneMemberTurns(db: Database, before: Date): Promise<number> {
  const deleted = await db
    .delete(memberTurns)
    .where(lt(memberTurns.takenAt, before))
    .returning({ key: memberTurns.key });
  return deleted.length;
}
