import { sql } from 'drizzle-orm';
import { BotError } from '../../core/errors.ts';
import type { Database } from '../database.ts';

/**
 * The bot's data as JSON lines, the same on PGlite and PostgreSQL: a header line, then one
 * `{"table", "row"}` line per row, each row as PostgreSQL's own `row_to_json`. Written inside
 * one read-only REPEATABLE READ transaction, so every table comes from the same snapshot while
 * the bot keeps running. Restored with `json_populate_recordset`, which turns the JSON back
 * into each column's type (timestamps, arrays, jsonb).
 *
 * `pg_dump` stays the tool of record for PostgreSQL (roles, sequences, point-in-time
 * recovery); this format is for the embedded database, small servers, and moving between the
 * two.
 */
export const LOGICAL_FORMAT = 'tomodachi-logical-backup';
export const LOGICAL_VERSION = 1;

export interface LogicalHeader {
  format: typeof LOGICAL_FORMAT;
  version: number;
  createdAt: string;
  /** Tables in the order they are restored (a row's references come first). */
  tables: string[];
  /** How many migrations the source database had applied. */
  migrations: number;
}

const INSERT_BATCH = 200;

export async function exportLogical(db: Database): Promise<string[]> {
  return db.transaction(
    async (transaction) => {
      const tables = await tablesInDependencyOrder(transaction);
      const header: LogicalHeader = {
        format: LOGICAL_FORMAT,
        version: LOGICAL_VERSION,
        createdAt: new Date().toISOString(),
        tables,
        migrations: await appliedMigrations(transaction),
      };
      const lines = [JSON.stringify(header)];
      for (const table of tables) {
        const rows = await rowsOf(
          transaction,
          sql`select row_to_json(t)::text as row from ${sql.identifier(table)} t`,
        );
        for (const row of rows) lines.push(`{"table":${JSON.stringify(table)},"row":${row.row}}`);
      }
      return lines;
    },
    { isolationLevel: 'repeatable read', accessMode: 'read only' },
  );
}

/**
 * Loads an export into a migrated database that holds no rows yet (refused otherwise), in one
 * transaction. An export from an older schema loads too: columns it lacks take their defaults.
 */
export async function importLogical(db: Database, lines: readonly string[]): Promise<number> {
  const header = parseHeader(lines[0]);
  const byTable = new Map<string, string[]>();
  for (const line of lines.slice(1)) {
    if (line.trim() === '') continue;
    const { table } = JSON.parse(line) as { table: string };
    const rowText = line.slice(line.indexOf(',"row":') + ',"row":'.length, -1);
    byTable.set(table, [...(byTable.get(table) ?? []), rowText]);
  }
  return db.transaction(async (transaction) => {
    const present = await tablesInDependencyOrder(transaction);
    if (header.migrations > (await appliedMigrations(transaction))) {
      throw new BotError('restore_newer', 'the backup comes from a newer version of the bot');
    }
    const occupied = await occupiedTables(transaction, present);
    if (occupied.length > 0) {
      throw new BotError(
        'restore_not_empty',
        `the target database already holds data (${occupied.join(', ')}); restore into an empty one`,
      );
    }
    let restored = 0;
    for (const table of header.tables) {
      const rows = byTable.get(table) ?? [];
      if (!present.includes(table) || rows.length === 0) continue;
      for (let start = 0; start < rows.length; start += INSERT_BATCH) {
        const batch = rows.slice(start, start + INSERT_BATCH);
        const columns = Object.keys(JSON.parse(batch[0]!) as object);
        const list = sql.join(
          columns.map((column) => sql.identifier(column)),
          sql`, `,
        );
        await transaction.execute(
          sql`insert into ${sql.identifier(table)} (${list}) select ${list} from json_populate_recordset(null::${sql.identifier(table)}, ${`[${batch.join(',')}]`}::json)`,
        );
        restored += batch.length;
      }
    }
    return restored;
  });
}

export function parseHeader(line: string | undefined): LogicalHeader {
  let header: Partial<LogicalHeader> = {};
  try {
    header = JSON.parse(line ?? '') as Partial<LogicalHeader>;
  } catch {
    // reported below
  }
  if (header.format !== LOGICAL_FORMAT || header.version !== LOGICAL_VERSION) {
    throw new BotError('restore_format', 'not a Tomodachi logical backup (or a newer format)');
  }
  return header as LogicalHeader;
}

type Executor = Pick<Database, 'execute'>;

async function rowsOf<T = Record<string, string>>(db: Executor, query: ReturnType<typeof sql>) {
  const result: unknown = await db.execute(query);
  return (result as { rows: T[] }).rows;
}

/** The bot's tables, each after the tables it references (foreign keys). */
async function tablesInDependencyOrder(db: Executor): Promise<string[]> {
  const tables = await rowsOf<{ name: string }>(
    db,
    sql`select tablename as name from pg_tables where schemaname = 'public' order by tablename`,
  );
  const references = await rowsOf<{ child: string; parent: string }>(
    db,
    sql`select c.relname as child, p.relname as parent from pg_constraint k
        join pg_class c on c.oid = k.conrelid join pg_class p on p.oid = k.confrelid
        join pg_namespace n on n.oid = c.relnamespace
        where k.contype = 'f' and n.nspname = 'public' and k.conrelid <> k.confrelid`,
  );
  const ordered: string[] = [];
  const visit = (name: string, path: ReadonlySet<string>): void => {
    if (ordered.includes(name) || path.has(name)) return;
    for (const { parent } of references.filter((reference) => reference.child === name))
      visit(parent, new Set([...path, name]));
    ordered.push(name);
  };
  for (const { name } of tables) visit(name, new Set());
  return ordered;
}

async function appliedMigrations(db: Executor): Promise<number> {
  const [row] = await rowsOf<{ count: string | number | null }>(
    db,
    sql`select case when to_regclass('drizzle.__drizzle_migrations') is null then 0
        else (select count(*) from drizzle.__drizzle_migrations) end as count`,
  );
  return Number(row?.count ?? 0);
}

async function occupiedTables(db: Executor, tables: readonly string[]): Promise<string[]> {
  const occupied: string[] = [];
  for (const table of tables) {
    const rows = await rowsOf(db, sql`select 1 from ${sql.identifier(table)} limit 1`);
    if (rows.length > 0) occupied.push(table);
  }
  return occupied;
}
