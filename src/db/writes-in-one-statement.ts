import { sql, type SQLWrapper } from 'drizzle-orm';
import type { Database } from './database.ts';

/**
 * Sends several writes (inserts, upserts) as one statement: each a data-modifying CTE, all of
 * which run whether or not the outer query reads them. One round trip and one transaction
 * instead of BEGIN, each write and COMMIT; every write sees the same `now()`.
 */
export async function writeInOneStatement(
  db: Database,
  writes: readonly SQLWrapper[],
): Promise<void> {
  const ctes = writes.map(
    (write, index) => sql`${sql.raw(`write_${index}`)} as (${write.getSQL()})`,
  );
  await db.execute(sql`with ${sql.join(ctes, sql`, `)} select 1`);
}
