import { sql, type SQLWrapper } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { Database } from './database.ts';

type PreparedStatement = ReturnType<Database['_']['session']['prepareQuery']>;

/** Drizzle's dialect as every database of ours is built (no casing option): text only. */
const dialect = new PgDialect();
/** Shapes kept per database session; a turn's statements have a handful. */
const SHAPES_PER_SESSION = 32;

/**
 * A statement drizzle builds into text once per shape and then only fills with values.
 * Building a large statement's tree costs CPU on every call (a turn's first read, 3.4 kB of
 * SQL: 0.6 ms), all of it spent again for the same text with other values.
 *
 * `build` receives placeholders in place of the values named by `Name` (typed as the strings
 * they stand for): it must use them only as values of the statement (in `eq`, in sql``), never
 * look at them in JavaScript. Everything else it decides (which parts are present, limits)
 * must be spelled out in `shape`: two calls with one shape share one text.
 */
export class StatementCache<Name extends string> {
  readonly #names: readonly Name[];
  /** Per session: `db` and each transaction have their own, and the statement is bound to it. */
  readonly #bySession = new WeakMap<object, Map<string, PreparedStatement>>();

  constructor(names: readonly Name[]) {
    this.#names = names;
  }

  /** Sends the shape's statement (built now if it is new) with `values`; the driver's result. */
  execute(
    db: Database,
    call: {
      shape: string;
      values: Record<Name, string>;
      build: (slots: Record<Name, string>) => SQLWrapper;
    },
  ): Promise<unknown> {
    return this.#prepared(db, call.shape, call.build).execute(call.values);
  }

  #prepared(
    db: Database,
    shape: string,
    build: (slots: Record<Name, string>) => SQLWrapper,
  ): PreparedStatement {
    const session = db._.session;
    let shapes = this.#bySession.get(session);
    if (shapes === undefined) {
      shapes = new Map();
      this.#bySession.set(session, shapes);
    }
    const known = shapes.get(shape);
    if (known !== undefined) return known;
    const query = dialect.sqlToQuery(build(this.#slots()).getSQL());
    const prepared = session.prepareQuery(query, undefined, undefined, false);
    if (shapes.size >= SHAPES_PER_SESSION) shapes.delete(shapes.keys().next().value ?? '');
    shapes.set(shape, prepared);
    return prepared;
  }

  /** A placeholder per value; drizzle binds it where the value would go and fills it per call. */
  #slots(): Record<Name, string> {
    const slots = {} as Record<Name, string>;
    for (const name of this.#names) slots[name] = sql.placeholder(name) as unknown as string;
    return slots;
  }
}
