import { lt, sql } from 'drizzle-orm';
import { claimInsert, type MessageClaim } from './claim-repository.ts';
import type { Database } from './database.ts';
import { memberTurns } from './schema.ts';

export type MemberTurnVerdict =
  | {
      allowed: true;
      /** With a claim asked for: whether this attempt holds it (see `claimMessage`). */
      claimed?: boolean;
    }
  | { allowed: false; retryAfterMs: number };

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
  /**
   * The message's claim, made in the same statement when the turn is allowed (a refused turn
   * claims nothing): one round trip for both steps of intake.
   */
  claim?: MessageClaim | undefined;
}

/**
 * Records a member's turn and decides whether it is within the limit, across every process:
 * allowed when fewer than `perWindow` counted turns of the member lie in the window before
 * `now`. Decided once per key, under a lock on the member: the first process to ask about a
 * message decides, every other one reads that verdict (a refused turn stays stored, not
 * counted, so it uses none of the allowance). One statement: the database function
 * `take_member_turn` (migrations/0008) runs the lock, the insert, the count and, for a refusal,
 * the time until the window has room, in one round trip; with a claim, an allowed turn's claim
 * is inserted in the same statement.
 */
export async function takeMemberTurn(
  db: Database,
  request: MemberTurnRequest,
): Promise<MemberTurnVerdict> {
  const at =
    request.now === undefined
      ? sql`clock_timestamp()`
      : sql`${request.now.toISOString()}::timestamptz`;
  const verdict = sql`select allowed, retry_after_ms from take_member_turn(${request.key},
    ${request.scopeId}, ${request.memberId}, ${at},
    ${request.perWindow}::integer, ${request.windowMs}::integer)`;
  const { claim } = request;
  const result: unknown = await db.execute(
    claim === undefined
      ? verdict
      : sql`with verdict as materialized (${verdict}), claimed as (${claimInsert(
          claim,
          sql`select ${claim.key}::text, ${claim.instanceId}::text, ${claim.channelId ?? null}::text,
            ${claim.attempt ?? null}::text from verdict where allowed`,
        )})
        select allowed, retry_after_ms, exists (select 1 from claimed) as claimed from verdict`,
  );
  const [row] = (result as { rows: VerdictRow[] }).rows;
  if (row === undefined) throw new Error('take_member_turn returned no verdict');
  if (!row.allowed) return { allowed: false, retryAfterMs: Number(row.retry_after_ms) };
  return row.claimed === undefined ? { allowed: true } : { allowed: true, claimed: row.claimed };
}

interface VerdictRow {
  allowed: boolean;
  retry_after_ms: number;
  claimed?: boolean;
}

/** Forgets turns older than `before` (they are outside every window). Returns how many. */
export async function pruneMemberTurns(db: Database, before: Date): Promise<number> {
  const deleted = await db
    .delete(memberTurns)
    .where(lt(memberTurns.takenAt, before))
    .returning({ key: memberTurns.key });
  return deleted.length;
}
