import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';

/**
 * Several writes (inserts, upserts) as one statement: each a data-modifying CTE, all of which
 * run whether or not the outer query reads them. One round trip and one transaction instead of
 * BEGIN, each write and COMMIT; every write sees the same `now()`. Built once per shape by the
 * StatementCache of each caller (a turn's opening, its bill).
 */
export function writesInOneStatement(writes: readonly SQLWrapper[]): SQL {
  const ctes = writes.map(
    (write, index) => sql`${sql.raw(`write_${index}`)} as (${write.getSQL()})`,
  );
  return sql`with ${sql.join(ctes, sql`, `)} select 1`;
}
