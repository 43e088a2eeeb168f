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

/** Rows read per FETCH from a table's cursor while exporting. */
const EXPORT_FETCH_ROWS = 2_000;
/** An INSERT carries at most this many rows, or about this many characters of JSON. */
const INSERT_BATCH_ROWS = 1_000;
const INSERT_BATCH_CHARACTERS = 1_000_000;
const ROW_PREFIX = '{"table":';
const ROW_SEPARATOR = ',"row":';

/**
 * Writes the export through `write` as it is read: one table at a time through a cursor, a
 * batch of rows per call, so memory stays flat whatever the tables hold. Returns the rows
 * written.
 */
export async function exportLogical(
  db: Database,
  write: (text: string) => Promise<void>,
): Promise<number> {
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
      await write(`${JSON.stringify(header)}\n`);
      let written = 0;
      for (const table of tables) written += await exportTable(transaction, table, write);
      return written;
    },
    { isolationLevel: 'repeatable read', accessMode: 'read only' },
  );
}

async function exportTable(
  transaction: Executor,
  table: string,
  write: (text: string) => Promise<void>,
): Promise<number> {
  const prefix = `${ROW_PREFIX}${JSON.stringify(table)}${ROW_SEPARATOR}`;
  await transaction.execute(
    sql`declare backup_rows no scroll cursor for select row_to_json(t)::text as row from ${sql.identifier(table)} t`,
  );
  let written = 0;
  for (;;) {
    const rows = await rowsOf<{ row: string }>(
      transaction,
      sql.raw(`fetch forward ${EXPORT_FETCH_ROWS} from backup_rows`),
    );
    if (rows.length === 0) break;
    await write(rows.map((row) => `${prefix}${row.row}}\n`).join(''));
    written += rows.length;
  }
  await transaction.execute(sql`close backup_rows`);
  return written;
}

/**
 * Loads an export, line by line as it is read, into a migrated database that holds no rows yet
 * (refused otherwise), in one transaction. Rows go in the export's order (each table after the
 * ones it references), a batch per INSERT. An export from an older schema loads too: columns
 * it lacks take their defaults, and tables this version no longer has are skipped.
 */
export async function importLogical(
  db: Database,
  lines: AsyncIterable<string> | Iterable<string>,
): Promise<number> {
  const iterator = asyncIterator(lines);
  const first = await iterator.next();
  const header = parseHeader(first.done === true ? undefined : first.value);
  return db.transaction(async (transaction) => {
    const present = new Set(await tablesInDependencyOrder(transaction));
    if (header.migrations > (await appliedMigrations(transaction))) {
      throw new BotError('restore_newer', 'the backup comes from a newer version of the bot');
    }
    await refuseOccupied(transaction);
    const wanted = new Set(header.tables.filter((table) => present.has(table)));
    const batch = new InsertBatch(transaction);
    for (let next = await iterator.next(); next.done !== true; next = await iterator.next()) {
      if (next.value.trim() === '') continue;
      const { table, rowText } = splitRowLine(next.value);
      if (wanted.has(table)) await batch.add(table, rowText);
    }
    await batch.flush();
    return batch.inserted;
  });
}

/** Refuses a target whose tables hold any row (a restore only fills an empty database). */
export async function refuseOccupied(db: Executor): Promise<void> {
  const occupied = await occupiedTables(db, await tablesInDependencyOrder(db));
  if (occupied.length > 0) {
    throw new BotError(
      'restore_not_empty',
      `the target database already holds data (${occupied.join(', ')}); restore into an empty one`,
    );
  }
}

/** Rows of one table gathered into a single `json_populate_recordset` INSERT. */
class InsertBatch {
  inserted = 0;
  #table: string | undefined;
  #rows: string[] = [];
  #characters = 0;

  readonly #transaction: Executor;

  constructor(transaction: Executor) {
    this.#transaction = transaction;
  }

  async add(table: string, rowText: string): Promise<void> {
    if (table !== this.#table) await this.flush();
    this.#table = table;
    this.#rows.push(rowText);
    this.#characters += rowText.length;
    if (this.#rows.length >= INSERT_BATCH_ROWS || this.#characters >= INSERT_BATCH_CHARACTERS)
      await this.flush();
  }

  async flush(): Promise<void> {
    const table = this.#table;
    const rows = this.#rows;
    if (table === undefined || rows.length === 0) return;
    this.#rows = [];
    this.#characters = 0;
    const columns = Object.keys(JSON.parse(rows[0]!) as object);
    const list = sql.join(
      columns.map((column) => sql.identifier(column)),
      sql`, `,
    );
    await this.#transaction.execute(
      sql`insert into ${sql.identifier(table)} (${list}) select ${list} from json_populate_recordset(null::${sql.identifier(table)}, ${`[${rows.join(',')}]`}::json)`,
    );
    this.inserted += rows.length;
  }
}

/**
 * A row line is `{"table":"<name>","row":<row_to_json>}` as exportLogical writes it: the row's
 * text is cut out without parsing it. Anything else is parsed as JSON, and refused with its
 * start when it is not a row line.
 */
function splitRowLine(line: string): { table: string; rowText: string } {
  const separator = line.indexOf(ROW_SEPARATOR);
  if (line.startsWith(ROW_PREFIX) && separator > 0 && line.endsWith('}')) {
    const table: unknown = JSON.parse(line.slice(ROW_PREFIX.length, separator));
    if (typeof table === 'string')
      return { table, rowText: line.slice(separator + ROW_SEPARATOR.length, -1) };
  }
  let parsed: { table?: unknown; row?: unknown } = {};
  try {
    parsed = JSON.parse(line) as typeof parsed;
  } catch {
    // refused below
  }
  if (typeof parsed.table !== 'string' || typeof parsed.row !== 'object' || parsed.row === null)
    throw new BotError('restore_format', `not a backup row line: ${line.slice(0, 80)}`);
  return { table: parsed.table, rowText: JSON.stringify(parsed.row) };
}

function asyncIterator(lines: AsyncIterable<string> | Iterable<string>): AsyncIterator<string> {
  if (Symbol.asyncIterator in lines) return lines[Symbol.asyncIterator]();
  const iterator = lines[Symbol.iterator]();
  return { next: () => Promise.resolve(iterator.next()) };
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
