import { sql } from 'drizzle-orm';
import type { Database } from './database.ts';

/** bot_state keys of the IDENTIFY rate-limit slots: one row per `shard_id % max_concurrency`. */
const SLOT_KEY_PREFIX = 'gateway-identify:';

/**
 * Takes IDENTIFY rate-limit key `key` for this process if its last IDENTIFY, by any process
 * on any host, is at least `windowMs` old (the database's clock, so hosts need not agree on
 * time). Returns 0 when taken, else the milliseconds until the window ends. One statement: the
 * row lock of the upsert makes two takers of one key at once impossible.
 */
export async function takeIdentifySlot(
  db: Database,
  options: { key: number; windowMs: number },
): Promise<number> {
  const slot = `${SLOT_KEY_PREFIX}${options.key}`;
  const window = `${options.windowMs} milliseconds`;
  const taken = await db.execute(sql`
    insert into bot_state (key, value, updated_at) values (${slot}, 'identify', clock_timestamp())
    on conflict (key) do update set updated_at = clock_timestamp()
      where bot_state.updated_at <= clock_timestamp() - ${window}::interval
    returning key`);
  if (rowsOf(taken).length > 0) return 0;
  const left = await db.execute(sql`
    select greatest(0, ceil(extract(epoch from
      (updated_at + ${window}::interval - clock_timestamp())) * 1000)) as wait_ms
    from bot_state where key = ${slot}`);
  return Math.max(1, Number(rowsOf(left)[0]?.['wait_ms'] ?? 1));
}

function rowsOf(result: unknown): Record<string, unknown>[] {
  return (result as { rows: Record<string, unknown>[] }).rows;
}
