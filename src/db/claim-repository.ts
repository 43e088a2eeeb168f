import { and, eq, gt, inArray, isNotNull, isNull, lt, sql, type SQL } from 'drizzle-orm';
import type { Database } from './database.ts';
import { messageClaims } from './schema.ts';

/** The owner of a claim handed back at shutdown: any process may take it over. */
export const RELEASED_CLAIM = 'released';

/** A member message claimed and not yet answered, refused or stopped. */
export interface UnsettledClaim {
  messageId: string;
  channelId: string;
  instanceId: string;
  claimedAt: Date;
}

export interface MessageClaim {
  /** A message id, or `retry:<interaction id>`, `interaction:<id>`, `refused:<message id>`. */
  key: string;
  instanceId: string;
  /** A member message names its channel: the claim is then a ledger entry until settled. */
  channelId?: string;
  /**
   * The same for every retry of one claiming step. A retry that finds the claim already made by
   * this attempt (its first try committed, but the reply was lost to a dropped connection) gets
   * true again; any other claimer of the key, this process's own later ones included, gets false.
   */
  attempt?: string;
}

/** Claims a key for this process: true for exactly one claiming attempt across every process. */
export async function claimMessage(db: Database, claim: MessageClaim): Promise<boolean> {
  const { key, instanceId, channelId, attempt } = claim;
  const values = sql`values (${key}, ${instanceId}, ${channelId ?? null}, ${attempt ?? null})`;
  const result: unknown = await db.execute(claimInsert(claim, values));
  return (result as { rows: unknown[] }).rows.length === 1;
}

/**
 * The claim's insert of `rows` (a VALUES list or a SELECT of key, instance id, channel id and
 * attempt) with its rule for a key claimed already, returning the key when this attempt holds
 * the claim. Also a step of `takeMemberTurn`, which claims in the rate limit's statement.
 */
export function claimInsert(claim: MessageClaim, rows: SQL): SQL {
  const { instanceId, attempt } = claim;
  const onConflict =
    attempt === undefined
      ? sql`do nothing`
      : sql`do update set attempt = excluded.attempt
          where ${messageClaims.attempt} = ${attempt} and ${messageClaims.instanceId} = ${instanceId}`;
  return sql`insert into ${messageClaims} (key, instance_id, channel_id, attempt) ${rows}
    on conflict (key) ${onConflict} returning key`;
}

/**
 * A settled message is owed again (a Retry press re-asks it): its claim is this process's and
 * unsettled once more, claimed now, so a shutdown hands it back and a crash leaves it for
 * recovery like any message. Only the process that claimed the press calls this.
 */
export async function reopenClaim(
  db: Database,
  claim: { key: string; instanceId: string; channelId: string },
): Promise<void> {
  const { key, instanceId, channelId } = claim;
  await db
    .insert(messageClaims)
    .values({ key, instanceId, channelId })
    .onConflictDoUpdate({
      target: messageClaims.key,
      set: { instanceId, channelId, settledAt: null, claimedAt: sql`now()` },
    });
}

/** The member has seen the outcome of these messages: nothing is owed for them any more. */
export async function settleClaims(db: Database, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  await db
    .update(messageClaims)
    .set({ settledAt: new Date() })
    .where(and(inArray(messageClaims.key, [...keys]), isNull(messageClaims.settledAt)));
}

/**
 * Messages a reply answered in passing (they were in the conversation it answered): settled,
 * with a settled claim made for any not claimed yet, so no process, backfill or later start
 * answers them again. One statement.
 */
export async function settleAnswered(
  db: Database,
  answered: { keys: readonly string[]; channelId: string; instanceId: string },
): Promise<void> {
  if (answered.keys.length === 0) return;
  const { channelId, instanceId } = answered;
  const settledAt = new Date();
  await db
    .insert(messageClaims)
    .values(answered.keys.map((key) => ({ key, instanceId, channelId, settledAt })))
    .onConflictDoUpdate({
      target: messageClaims.key,
      set: { settledAt: sql`coalesce(${messageClaims.settledAt}, excluded.settled_at)` },
    });
}

/** Hands claims back (shutdown before their turn started): another process may answer them. */
export async function releaseClaims(
  db: Database,
  keys: readonly string[],
  instanceId: string,
): Promise<void> {
  if (keys.length === 0) return;
  await db
    .update(messageClaims)
    .set({ instanceId: RELEASED_CLAIM })
    .where(and(inArray(messageClaims.key, [...keys]), eq(messageClaims.instanceId, instanceId)));
}

/** Member messages claimed since `since` and still owed an outcome. */
export async function unsettledClaims(db: Database, since: Date): Promise<UnsettledClaim[]> {
  const rows = await db
    .select({
      messageId: messageClaims.key,
      channelId: messageClaims.channelId,
      instanceId: messageClaims.instanceId,
      claimedAt: messageClaims.claimedAt,
    })
    .from(messageClaims)
    .where(
      and(
        isNull(messageClaims.settledAt),
        isNotNull(messageClaims.channelId),
        gt(messageClaims.claimedAt, since),
      ),
    )
    .orderBy(messageClaims.claimedAt);
  return rows.flatMap((row) =>
    row.channelId === null ? [] : [{ ...row, channelId: row.channelId }],
  );
}

/**
 * Moves an unsettled claim from `from` (a stopped process, or RELEASED_CLAIM) to `to`; true for
 * exactly one of several processes trying at once.
 */
export async function takeOverClaim(
  db: Database,
  key: string,
  takeOver: { from: string; to: string },
): Promise<boolean> {
  const moved = await db
    .update(messageClaims)
    .set({ instanceId: takeOver.to })
    .where(
      and(
        eq(messageClaims.key, key),
        eq(messageClaims.instanceId, takeOver.from),
        isNull(messageClaims.settledAt),
      ),
    )
    .returning({ key: messageClaims.key });
  return moved.length === 1;
}

/** Drops claims older than `before` (Discord never redelivers an event that old). */
export async function pruneClaims(db: Database, before: Date): Promise<number> {
  const pruned = await db
    .delete(messageClaims)
    .where(lt(messageClaims.claimedAt, before))
    .returning({ key: messageClaims.key });
  return pruned.length;
}
