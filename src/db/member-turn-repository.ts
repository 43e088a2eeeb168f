import { lt, sql, type SQL } from 'drizzle-orm';
import { claimInsert, type MessageClaim } from './claim-repository.ts';
import type { Database } from './database.ts';
import { memberTurns } from './schema.ts';
import { StatementCache } from './statement-cache.ts';

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
  const { claim, now } = request;
  const result = await MEMBER_TURN.execute(db, {
    shape: `${now === undefined ? 'server-clock' : 'given-time'} ${claimShape(claim)}`,
    values: {
      key: request.key,
      scopeId: request.scopeId,
      memberId: request.memberId,
      perWindow: request.perWindow,
      windowMs: request.windowMs,
      now: now?.toISOString() ?? null,
      claim: {
        key: claim?.key ?? '',
        instanceId: claim?.instanceId ?? '',
        channelId: claim?.channelId ?? null,
        attempt: claim?.attempt ?? null,
      },
    },
    build: (slots) => memberTurnStatement(slots, { timed: now !== undefined, claim }),
  });
  const [row] = (result as { rows: VerdictRow[] }).rows;
  if (row === undefined) throw new Error('take_member_turn returned no verdict');
  if (!row.allowed) return { allowed: false, retryAfterMs: Number(row.retry_after_ms) };
  return row.claimed === undefined ? { allowed: true } : { allowed: true, claimed: row.claimed };
}

interface MemberTurnValues {
  key: string;
  scopeId: string;
  memberId: string;
  perWindow: number;
  windowMs: number;
  now: string | null;
  claim: { key: string; instanceId: string; channelId: string | null; attempt: string | null };
}

/** Every member message asks this once: its statement is built once per shape. */
const MEMBER_TURN = new StatementCache<MemberTurnValues>();

/** Whether a claim is made with the verdict, and with which rule for a key claimed already. */
function claimShape(claim: MessageClaim | undefined): string {
  if (claim === undefined) return 'no-claim';
  return claim.attempt === undefined ? 'claim' : 'claim-attempt';
}

/** The statement of {@link takeMemberTurn}, its values as `slots` (placeholders). */
function memberTurnStatement(
  slots: MemberTurnValues,
  shape: { timed: boolean; claim: MessageClaim | undefined },
): SQL {
  const at = shape.timed ? sql`${slots.now}::timestamptz` : sql`clock_timestamp()`;
  const verdict = sql`select allowed, retry_after_ms from take_member_turn(${slots.key}::text,
    ${slots.scopeId}::text, ${slots.memberId}::text, ${at},
    ${slots.perWindow}::integer, ${slots.windowMs}::integer)`;
  if (shape.claim === undefined) return verdict;
  const { claim } = slots;
  const slotted: MessageClaim = { key: claim.key, instanceId: claim.instanceId };
  if (shape.claim.attempt !== undefined) slotted.attempt = claim.attempt ?? '';
  return sql`with verdict as materialized (${verdict}), claimed as (${claimInsert(
    slotted,
    sql`select ${claim.key}::text, ${claim.instanceId}::text, ${claim.channelId}::text,
      ${claim.attempt}::text from verdict where allowed`,
  )})
    select allowed, retry_after_ms, exists (select 1 from claimed) as claimed from verdict`;
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
