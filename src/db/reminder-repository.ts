import { and, asc, count, eq, inArray, lte, min, or, sql } from 'drizzle-orm';
import type { ScopeKind } from '../core/settings.ts';
import type { Database } from './database.ts';
import { ensureScope } from './scope-settings-repository.ts';
import { reminders, scopes, type ReminderStatus } from './schema.ts';

export interface Reminder {
  id: string;
  scopeId: string;
  channelId: string;
  userId: string;
  messageId: string;
  content: string;
  dueAt: Date;
  status: ReminderStatus;
  attempts: number;
}

export interface NewReminder {
  scope: { id: string; kind: ScopeKind };
  channelId: string;
  userId: string;
  messageId: string;
  content: string;
  dueAt: Date;
  /** At most this many undelivered reminders per member in a scope. */
  limit: number;
}

export type CreateReminderResult =
  { status: 'created'; reminder: Reminder } | { status: 'full'; limit: number };

/** Stores a reminder unless the member already has `limit` undelivered ones in the scope. */
export async function createReminder(
  db: Database,
  reminder: NewReminder,
): Promise<CreateReminderResult> {
  await ensureScope(db, reminder.scope.id, reminder.scope.kind);
  return db.transaction(async (transaction) => {
    // Serializes concurrent writers of one scope so two processes cannot both pass the limit.
    await transaction
      .select({ id: scopes.id })
      .from(scopes)
      .where(eq(scopes.id, reminder.scope.id))
      .for('update');
    const [pending] = await transaction
      .select({ count: count() })
      .from(reminders)
      .where(
        and(
          eq(reminders.scopeId, reminder.scope.id),
          eq(reminders.userId, reminder.userId),
          inArray(reminders.status, ['pending', 'claimed']),
        ),
      );
    if ((pending?.count ?? 0) >= reminder.limit) return { status: 'full', limit: reminder.limit };
    const [row] = await transaction
      .insert(reminders)
      .values({
        scopeId: reminder.scope.id,
        channelId: reminder.channelId,
        userId: reminder.userId,
        messageId: reminder.messageId,
        content: reminder.content,
        dueAt: reminder.dueAt,
      })
      .returning();
    if (row === undefined) throw new Error('reminder insert returned no row');
    return { status: 'created', reminder: fromRow(row) };
  });
}

/**
 * The shards of a sharded process: it delivers only reminders of guilds on them (a guild's
 * channels are unknown to the other shards' processes) and of DMs when it holds shard 0.
 */
export interface ReminderShards {
  shardIds: readonly number[];
  shardCount: number;
}

export interface ClaimOptions {
  /** Only reminders this process's shards can deliver; undefined: every reminder. */
  shards?: ReminderShards | undefined;
  now: Date;
  /** Unique per claim; only its holder may settle the claimed rows. */
  claimToken: string;
  /** Claims older than this were left by a process that died mid-delivery: take them over. */
  staleClaimBefore: Date;
  limit: number;
}

/**
 * Atomically claims due reminders. `FOR UPDATE SKIP LOCKED` lets concurrent claimers pass each
 * other's rows, and the outer condition is re-checked on the locked row, so a reminder is
 * claimed by exactly one process.
 */
export async function claimDueReminders(db: Database, options: ClaimOptions): Promise<Reminder[]> {
  const claimable = and(
    or(
      and(eq(reminders.status, 'pending'), lte(reminders.dueAt, options.now)),
      and(eq(reminders.status, 'claimed'), lte(reminders.claimedAt, options.staleClaimBefore)),
    ),
    onShards(options.shards),
  );
  // A CTE, not `id in (subquery)`: PostgreSQL may rescan an IN subquery once per outer row, and
  // each rescan picks another `limit` rows — the batch limit was then ignored. A CTE holding
  // FOR UPDATE is never inlined, so it runs exactly once.
  const due = db
    .$with('due')
    .as(
      db
        .select({ id: reminders.id })
        .from(reminders)
        .where(claimable)
        .orderBy(asc(reminders.dueAt))
        .limit(options.limit)
        .for('update', { skipLocked: true }),
    );
  const rows = await db
    .with(due)
    .update(reminders)
    .set({
      status: 'claimed',
      claimToken: options.claimToken,
      claimedAt: options.now,
      attempts: sql`${reminders.attempts} + 1`,
    })
    .where(and(inArray(reminders.id, db.select({ id: due.id }).from(due)), claimable))
    .returning();
  return rows.map(fromRow).sort((left, right) => left.dueAt.getTime() - right.dueAt.getTime());
}

/**
 * The fence before an irreversible send: true when `claimToken` still holds the reminder, and
 * then its claim is renewed (`claimedAt = now`), so no other process may take it over for a
 * whole claim timeout from here. False when the claim was lost (taken over, or released).
 */
export async function renewReminderClaim(
  db: Database,
  options: { id: string; claimToken: string; now: Date },
): Promise<boolean> {
  const rows = await db
    .update(reminders)
    .set({ claimedAt: options.now })
    .where(heldBy(options.id, options.claimToken))
    .returning({ id: reminders.id });
  return rows.length > 0;
}

/** Settles a delivered reminder; false when the claim was lost (another process took it over). */
export async function markReminderDelivered(
  db: Database,
  options: { id: string; claimToken: string; now: Date },
): Promise<boolean> {
  const rows = await db
    .update(reminders)
    .set({ status: 'delivered', deliveredAt: options.now, claimToken: null, lastError: null })
    .where(heldBy(options.id, options.claimToken))
    .returning({ id: reminders.id });
  return rows.length > 0;
}

/** After a failed delivery: try again at `retryAt`, or give up for good when it is undefined. */
export async function releaseReminder(
  db: Database,
  options: { id: string; claimToken: string; error: string; retryAt: Date | undefined },
): Promise<boolean> {
  const rows = await db
    .update(reminders)
    .set(
      options.retryAt === undefined
        ? { status: 'failed', claimToken: null, lastError: options.error }
        : { status: 'pending', claimToken: null, dueAt: options.retryAt, lastError: options.error },
    )
    .where(heldBy(options.id, options.claimToken))
    .returning({ id: reminders.id });
  return rows.length > 0;
}

/** When the scheduler next has something to do: the earliest pending due time, if any. */
export async function nextReminderDueAt(
  db: Database,
  shards?: ReminderShards,
): Promise<Date | undefined> {
  const [row] = await db
    .select({ dueAt: min(reminders.dueAt) })
    .from(reminders)
    .where(and(eq(reminders.status, 'pending'), onShards(shards)));
  return row?.dueAt ?? undefined;
}

/** Discord's rule in SQL: a guild is on shard `(id >> 22) % count`; DMs are on shard 0. */
function onShards(shards: ReminderShards | undefined) {
  if (shards === undefined) return undefined;
  const ids = sql.join(
    shards.shardIds.map((shardId) => sql`${shardId}`),
    sql`, `,
  );
  return sql`exists (select 1 from ${scopes} where ${scopes.id} = ${reminders.scopeId} and
    (case when ${scopes.kind} = 'dm' then 0
      else (${scopes.id}::bigint >> 22) % ${shards.shardCount} end) in (${ids}))`;
}

export async function findReminder(db: Database, id: string): Promise<Reminder | undefined> {
  const [row] = await db.select().from(reminders).where(eq(reminders.id, id));
  return row === undefined ? undefined : fromRow(row);
}

function heldBy(id: string, claimToken: string) {
  return and(
    eq(reminders.id, id),
    eq(reminders.status, 'claimed'),
    eq(reminders.claimToken, claimToken),
  );
}

function fromRow(row: typeof reminders.$inferSelect): Reminder {
  return {
    id: row.id,
    scopeId: row.scopeId,
    channelId: row.channelId,
    userId: row.userId,
    messageId: row.messageId,
    content: row.content,
    dueAt: row.dueAt,
    status: row.status,
    attempts: row.attempts,
  };
}
