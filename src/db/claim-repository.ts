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
  /** The message whose reply carried this one as unanswered (see `carryClaims`). */
  carriedBy: string | undefined;
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

/** Members' messages a turn's request carries as unanswered, and the message its reply answers. */
export interface CarriedMessages {
  keys: readonly string[];
  channelId: string;
  /** The message the carrying reply answers (a reply to it standing in the channel covers them). */
  replyTo: string;
  instanceId: string;
}

/**
 * Records, before a reply's first write, the members' messages its request carries as
 * unanswered: an unsettled claim names the reply's message (`carriedBy`), made for a message no
 * process had claimed (one sent while no process was connected, not read back yet), so no
 * backfill answers it meanwhile and a crash leaves it to recovery, which finds the reply that
 * covers it. A settled claim is left as it is. Returns the keys whose claim this made. One
 * statement.
 */
export async function carryClaims(db: Database, carried: CarriedMessages): Promise<string[]> {
  if (carried.keys.length === 0) return [];
  const { channelId, instanceId, replyTo } = carried;
  const rows = await db
    .insert(messageClaims)
    .values(carried.keys.map((key) => ({ key, instanceId, channelId, carriedBy: replyTo })))
    .onConflictDoUpdate({
      target: messageClaims.key,
      set: { carriedBy: replyTo },
      setWhere: isNull(messageClaims.settledAt),
    })
    // xmax is 0 on a row version this statement inserted, not on one it updated.
    .returning({ key: messageClaims.key, made: sql<boolean>`(xmax = 0)` });
  return rows.filter((row) => row.made).map((row) => row.key);
}

/**
 * The reply's request no longer carries these (a retry after a context overflow showed less
 * history): their claims stop naming it, and a claim `carryClaims` made for one is removed —
 * back as it was, unclaimed, for a backfill or a later turn to find.
 */
export async function uncarryClaims(
  db: Database,
  uncarried: {
    keys: readonly string[];
    made: readonly string[];
    replyTo: string;
    instanceId: string;
  },
): Promise<void> {
  const { replyTo, instanceId } = uncarried;
  const made = new Set(uncarried.made);
  const kept = uncarried.keys.filter((key) => !made.has(key));
  const mine = and(
    eq(messageClaims.carriedBy, replyTo),
    eq(messageClaims.instanceId, instanceId),
    isNull(messageClaims.settledAt),
  );
  if (made.size > 0) {
    await db.delete(messageClaims).where(and(inArray(messageClaims.key, [...made]), mine));
  }
  if (kept.length > 0) {
    await db
      .update(messageClaims)
      .set({ carriedBy: null })
      .where(and(inArray(messageClaims.key, kept), eq(messageClaims.carriedBy, replyTo)));
  }
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
      carriedBy: messageClaims.carriedBy,
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
    row.channelId === null
      ? []
      : [{ ...row, channelId: row.channelId, carriedBy: row.carriedBy ?? undefined }],
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
