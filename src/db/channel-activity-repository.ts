import { sql } from 'drizzle-orm';
import type { Database } from './database.ts';

/** bot_state keys of the channels' last message seen: `channel-activity:<channel id>`. */
const KEY_PREFIX = 'channel-activity:';

/** A channel's newest message seen, and when the row was written (the database's clock). */
export interface PersistedChannelActivity {
  channelId: string;
  lastSeenId: string;
  activeAt: Date;
}

/**
 * Writes the channels' last message seen, in one statement however many channels, stamped with
 * the database's clock; rows older than `keepMs` are deleted in the same statement, so the rows
 * never outgrow the channels active in that time.
 */
export async function saveChannelActivity(
  db: Database,
  channels: readonly { channelId: string; lastSeenId: string }[],
  keepMs: number,
): Promise<void> {
  if (channels.length === 0) return;
  const keys = channels.map((channel) => `${KEY_PREFIX}${channel.channelId}`);
  const rows = sql.join(
    channels.map(
      (channel, index) => sql`(${keys[index]}, ${channel.lastSeenId}, clock_timestamp())`,
    ),
    sql`, `,
  );
  const written = sql.join(
    keys.map((key) => sql`${key}`),
    sql`, `,
  );
  // The delete leaves the rows this statement writes alone: one statement may not touch a row twice.
  await db.execute(sql`
    with pruned as (
      delete from bot_state
      where key like ${`${KEY_PREFIX}%`}
        and updated_at < clock_timestamp() - ${`${keepMs} milliseconds`}::interval
        and key not in (${written})
    )
    insert into bot_state (key, value, updated_at) values ${rows}
    on conflict (key) do update set value = excluded.value, updated_at = excluded.updated_at`);
}

/** The channels active within `withinMs` (the database's clock), newest first, at most `limit`. */
export async function recentChannelActivity(
  db: Database,
  options: { withinMs: number; limit: number },
): Promise<PersistedChannelActivity[]> {
  const result: unknown = await db.execute(sql`
    select substr(key, ${KEY_PREFIX.length + 1}) as channel_id, value, updated_at
    from bot_state
    where key like ${`${KEY_PREFIX}%`}
      and updated_at >= clock_timestamp() - ${`${options.withinMs} milliseconds`}::interval
    order by updated_at desc
    limit ${options.limit}`);
  const { rows } = result as {
    rows: { channel_id: string; value: string; updated_at: Date | string }[];
  };
  return rows.map((row) => ({
    channelId: row.channel_id,
    lastSeenId: row.value,
    activeAt: row.updated_at instanceof Date ? row.updated_at : new Date(row.updated_at),
  }));
}
