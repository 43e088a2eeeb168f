import { createHash } from 'node:crypto';
import { sql, type SQLWrapper } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { Database } from './database.ts';

type PreparedStatement = ReturnType<Database['_']['session']['prepareQuery']>;

/** Drizzle's dialect as every database of ours is built (no casing option): text only. */
const dialect = new PgDialect();
/** Shapes kept per database session; a turn's statements have a handful. */
const SHAPES_PER_SESSION = 32;

/** Database sessions whose statements are named: prepared once per connection by the server. */
const NAMING_SESSIONS = new WeakSet<object>();

/**
 * From now on the statements of `db` are sent as named prepared statements (PostgreSQL): each
 * connection parses and plans a shape once, and after a few calls PostgreSQL keeps a generic
 * plan, instead of planning it on every call (a turn's first read: 1.5 ms of planning on the
 * server for 1.2 ms of execution). Not for a transaction-mode pooler that does not track
 * protocol-level prepared statements (PgBouncer before 1.21, or without max_prepared_statements):
 * DATABASE_PREPARED_STATEMENTS=off leaves them unnamed. PGlite's driver has no named form: there
 * pglite-named-statements.ts names every text asked twice, below drizzle.
 */
export function nameStatementsOf(db: Database): void {
  NAMING_SESSIONS.add(db._.session);
}

/** A shape's name: the same text is the same statement in every process and connection. */
export function statementName(text: string): string {
  return `tomodachi_${createHash('sha256').update(text).digest('base64url').slice(0, 32)}`;
}

/**
 * A statement drizzle builds into text once per shape and then only fills with values.
 * Building a large statement's tree costs CPU on every call (a turn's first read, 3.4 kB of
 * SQL: 0.6 ms), all of it spent again for the same text with other values.
 *
 * `build` receives `values` with a placeholder in place of each value (plain objects are
 * walked; strings, numbers, dates, arrays and null are values), typed as the values they stand
 * for. It must use them only as values of the statement (in `eq`, in sql``, as a column's value
 * in an insert, where the column's encoder is applied to each call's value), never look at them
 * in JavaScript: everything else it decides (which parts are present, limits) must be spelled
 * out in `shape`. Two calls with one shape share one text (and, where `nameStatementsOf` was
 * asked, one server-side prepared statement per connection).
 */
export class StatementCache<Values extends object> {
  /** Per session: `db` and each transaction have their own, and a statement is bound to one. */
  readonly #bySession = new WeakMap<object, Map<string, PreparedStatement>>();

  /** Sends the shape's statement (built now if it is new) with `values`; the driver's result. */
  execute(
    db: Database,
    call: { shape: string; values: Values; build: (slots: Values) => SQLWrapper },
  ): Promise<unknown> {
    const filled: Record<string, unknown> = {};
    walk(call.values, '', (path, value) => (filled[path] = value));
    return this.#prepared(db, call).execute(filled);
  }

  #prepared(
    db: Database,
    call: { shape: string; values: Values; build: (slots: Values) => SQLWrapper },
  ): PreparedStatement {
    const session = db._.session;
    let shapes = this.#bySession.get(session);
    if (shapes === undefined) {
      shapes = new Map();
      this.#bySession.set(session, shapes);
    }
    const known = shapes.get(call.shape);
    if (known !== undefined) return known;
    const slots = walk(call.values, '', (path) => sql.placeholder(path)) as Values;
    const query = dialect.sqlToQuery(call.build(slots).getSQL());
    const name = NAMING_SESSIONS.has(session) ? statementName(query.sql) : undefined;
    const prepared = session.prepareQuery(query, undefined, name, false);
    if (shapes.size >= SHAPES_PER_SESSION) shapes.delete(shapes.keys().next().value ?? '');
    shapes.set(call.shape, prepared);
    return prepared;
  }
}

/**
 * Visits each value of `values` by its path (`reply.id`), walking plain objects, and returns
 * the same structure with what `visit` returned in place of each value.
 */
function walk(
  values: object,
  prefix: string,
  visit: (path: string, value: unknown) => unknown,
): Record<string, unknown> {
  const mapped: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) {
    const path = `${prefix}${key}`;
    mapped[key] = isPlainObject(value)
      ? walk(value, `${path}.`, visit)
      : visit(path, value as unknown);
  }
  return mapped;
}

function isPlainObject(value: unknown): value is object {
  return (
    typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype
  );
}
