import { and, asc, count, desc, eq, gt, lt, ne, sql } from 'drizzle-orm';
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
  now: Date;
}

/** The advisory-lock namespace of the member rate limit ("mbrt"). */
const MEMBER_TURN_LOCK_CLASS = 0x6d627274;

/**
 * Records a member's turn and decides whether it is within the limit, across every process:
 * allowed when fewer than `perWindow` counted turns of the member lie in the window before
 * `now`. Decided once per key, under a lock on the member: the first process to ask about a
 * message decides, every other one reads that verdict (a refused turn stays stored, not
 * counted, so it uses none of the allowance).
 */
export async function takeMemberTurn(
  db: Database,
  request: MemberTurnRequest,
): Promise<MemberTurnVerdict> {
  const allowed = await db.transaction(async (transaction) => {
    await transaction.execute(
      sql`select pg_advisory_xact_lock(${MEMBER_TURN_LOCK_CLASS}, hashtext(${`${request.scopeId}:${request.memberId}`}))`,
    );
    const inserted = await transaction
      .insert(memberTurns)
      .values({
        key: request.key,
        scopeId: request.scopeId,
        memberId: request.memberId,
        takenAt: request.now,
      })
      .onConflictDoNothing()
      .returning({ key: memberTurns.key });
    if (inserted.length === 0) {
      const [decided] = await transaction
        .select({ counted: memberTurns.counted })
        .from(memberTurns)
        .where(eq(memberTurns.key, request.key));
      return decided?.counted ?? false;
    }
    const [earlier] = await transaction
      .select({ turns: count() })
      .from(memberTurns)
      .where(
        and(
          ofMember(request),
          eq(memberTurns.counted, true),
          gt(memberTurns.takenAt, new Date(request.now.getTime() - request.windowMs)),
          ne(memberTurns.key, request.key),
        ),
      );
    if ((earlier?.turns ?? 0) < request.perWindow) return true;
    await transaction
      .update(memberTurns)
      .set({ counted: false })
      .where(eq(memberTurns.key, request.key));
    return false;
  });
  return allowed
    ? { allowed: true }
    : { allowed: false, retryAfterMs: await retryAfterMs(db, request) };
}

/** Until the oldest of the `perWindow` newest counted turns leaves the window. */
async function retryAfterMs(db: Database, request: MemberTurnRequest): Promise<number> {
  const windowStart = new Date(request.now.getTime() - request.windowMs);
  const [oldest] = await db
    .select({ takenAt: memberTurns.takenAt })
    .from(memberTurns)
    .where(
      and(ofMember(request), eq(memberTurns.counted, true), gt(memberTurns.takenAt, windowStart)),
    )
    .orderBy(desc(memberTurns.takenAt), asc(memberTurns.key))
    .limit(1)
    .offset(Math.max(0, request.perWindow - 1));
  if (oldest === undefined) return 0;
  return Math.max(0, oldest.takenAt.getTime() + request.windowMs - request.now.getTime());
}

function ofMember(request: { scopeId: string; memberId: string }) {
  return and(eq(memberTurns.scopeId, request.scopeId), eq(memberTurns.memberId, request.memberId));
}

/** Forgets turns older than `before` (they are outside every window). Returns how many. */
export async function pruneMemberTurns(db: Database, before: Date): Promise<number> {
  const deleted = await db
    .delete(memberTurns)
    .where(lt(memberTurns.takenAt, before))
    .returning({ key: memberTurns.key });
  return deleted.length;
}
