import { eq, sql } from 'drizzle-orm';
import { noChannelOverrides, type ChannelOverrides } from '../core/channel-settings.ts';
import type { HumanizerDegree, ScopeKind } from '../core/settings.ts';
import type { Database } from './database.ts';
import { ensureScope } from './scope-settings-repository.ts';
import { channelSettings } from './schema.ts';

type ChannelRow = typeof channelSettings.$inferSelect;

/** A change to a channel's overrides; an explicit `undefined` hands the value back to the server. */
export type ChannelOverridesPatch = Partial<Omit<ChannelOverrides, 'channelId'>>;

/** One primary-key read; a channel that never overrode anything gets no overrides. */
export async function loadChannelOverrides(
  db: Database,
  channelId: string,
): Promise<ChannelOverrides> {
  const [row] = await db
    .select()
    .from(channelSettings)
    .where(eq(channelSettings.channelId, channelId));
  return row === undefined ? noChannelOverrides(channelId) : fromRow(row);
}

/** Creates or changes a channel's overrides (the scope row is made when missing). */
export async function updateChannelOverrides(
  db: Database,
  options: {
    channelId: string;
    scope: { id: string; kind: ScopeKind };
    patch: ChannelOverridesPatch;
  },
): Promise<ChannelOverrides> {
  const { channelId, scope, patch } = options;
  await ensureScope(db, scope.id, scope.kind);
  const values: Partial<typeof channelSettings.$inferInsert> = {};
  if ('persona' in patch) {
    values.personaName = patch.persona?.name ?? null;
    values.personaInstructions = patch.persona?.instructions ?? null;
  }
  if ('humanizerDegree' in patch) values.humanizerDegree = patch.humanizerDegree ?? null;
  const [row] = await db
    .insert(channelSettings)
    .values({ channelId, scopeId: scope.id, ...values })
    .onConflictDoUpdate({
      target: channelSettings.channelId,
      set: { ...values, scopeId: scope.id, updatedAt: sql`now()` },
    })
    .returning();
  if (row === undefined) throw new Error('channel settings upsert returned no row');
  return fromRow(row);
}

/** Deletes every channel override of a scope (`/config reset`); returns the channels it had. */
export async function clearChannelOverrides(db: Database, scopeId: string): Promise<string[]> {
  const rows = await db
    .delete(channelSettings)
    .where(eq(channelSettings.scopeId, scopeId))
    .returning({ channelId: channelSettings.channelId });
  return rows.map((row) => row.channelId);
}

function fromRow(row: ChannelRow): ChannelOverrides {
  const persona =
    row.personaName === null || row.personaInstructions === null
      ? undefined
      : { name: row.personaName, instructions: row.personaInstructions };
  return {
    channelId: row.channelId,
    persona,
    humanizerDegree:
      row.humanizerDegree === null ? undefined : (row.humanizerDegree as HumanizerDegree),
  };
}
