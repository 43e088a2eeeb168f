import { sql } from 'drizzle-orm';
import { readMigrationFiles, type MigrationMeta } from 'drizzle-orm/migrator';
import type { Database } from './database.ts';

/**
 * A migration whose SQL starts with this line runs outside a transaction, one statement at a
 * time: PostgreSQL refuses CREATE INDEX CONCURRENTLY (and ALTER TABLE … VALIDATE CONSTRAINT
 * is only worth splitting off) inside a transaction block, and a transaction that altered a
 * table keeps its exclusive lock until it commits. Its statements must be safe to run again
 * (IF NOT EXISTS, DROP INDEX CONCURRENTLY IF EXISTS before a rebuild): a migration cut off
 * half-way is not recorded, so it runs again at the next start.
 */
export const NO_TRANSACTION_MARKER = '-- migrate: no-transaction';

/**
 * Applies the pending migrations of `folder` the way drizzle's migrator does — the same
 * drizzle.__drizzle_migrations table and records, so a database migrated by any earlier
 * version keeps upgrading — except that each migration commits on its own instead of all of
 * them in one transaction (a lock taken by one migration ends with it), and a migration marked
 * with NO_TRANSACTION_MARKER runs outside a transaction. The caller serializes processes.
 */
export async function applyMigrations(db: Database, folder: string): Promise<number> {
  await db.execute(sql`create schema if not exists drizzle`);
  await db.execute(sql`create table if not exists drizzle.__drizzle_migrations (
    id serial primary key, hash text not null, created_at bigint)`);
  const last = await lastApplied(db);
  const pending = readMigrationFiles({ migrationsFolder: folder }).filter(
    (migration) => last === undefined || last < migration.folderMillis,
  );
  for (const migration of pending) {
    if (isNonTransactional(migration)) {
      for (const statement of migration.sql) await db.execute(sql.raw(statement));
      await record(db, migration);
    } else {
      await db.transaction(async (transaction) => {
        for (const statement of migration.sql) await transaction.execute(sql.raw(statement));
        await record(transaction, migration);
      });
    }
  }
  return pending.length;
}

function isNonTransactional(migration: MigrationMeta): boolean {
  return migration.sql[0]?.trimStart().startsWith(NO_TRANSACTION_MARKER) === true;
}

type Executor = Pick<Database, 'execute'>;

async function lastApplied(db: Executor): Promise<number | undefined> {
  const result: unknown = await db.execute(
    sql`select created_at from drizzle.__drizzle_migrations order by created_at desc limit 1`,
  );
  const [row] = (result as { rows: Array<{ created_at: string | number | null }> }).rows;
  return row?.created_at === undefined || row.created_at === null
    ? undefined
    : Number(row.created_at);
}

async function record(db: Executor, migration: MigrationMeta): Promise<void> {
  await db.execute(
    sql`insert into drizzle.__drizzle_migrations (hash, created_at) values (${migration.hash}, ${migration.folderMillis})`,
  );
}
