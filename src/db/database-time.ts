import { sql } from 'drizzle-orm';
import type { Database } from './database.ts';

/**
 * The database's clock: the one time every process and host shares. Hosts' clocks may disagree
 * by minutes, so whatever several processes compare (a claim's age) is judged by this one.
 */
export async function databaseTime(db: Database): Promise<Date> {
  const result: unknown = await db.execute(sql`select clock_timestamp() as now`);
  const [row] = (result as { rows: { now: unknown }[] }).rows;
  if (row === undefined) throw new Error('clock_timestamp() returned no row');
  return row.now instanceof Date ? row.now : new Date(String(row.now));
}
