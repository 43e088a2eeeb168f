/**
 * PGlite's `query` sends a statement as six protocol messages, each its own call into the
 * WebAssembly PostgreSQL (parse, describe, bind, describe, execute, sync), PostgreSQL parses
 * and plans the text on every call, and the results are parsed with a fresh copy of every type
 * parser. A turn sends the same handful of texts each time (statement-cache.ts), so here, as
 * PostgreSQL's named prepared statements do over the network (DATABASE_PREPARED_STATEMENTS), a
 * text PGlite is asked a second time is parsed once as a named statement, its parameter types
 * kept, and each later call is one call into PGlite: bind, describe, execute and sync together.
 * Measured alone (four of a turn's statements, empty tables): 0.11–1.09 ms each → 0.03–0.15; in
 * `npm run bench bot` on PGlite, CPU per turn 16.1–18.6 → 13.8–15.3 ms, first write p50
 * 10.6–12.0 → 8.4–9.9 ms. Transactions keep PGlite's own path (not a turn's hot statements).
 */
import {
  parse,
  protocol,
  type PGlite,
  type QueryOptions,
  type Results,
} from '@electric-sql/pglite';
import { LruMap } from '../core/lru-map.ts';

/** Texts remembered as seen once (named on their second call). */
const TEXTS_SEEN = 256;
/** Named statements kept in PGlite; the least recently used is closed past this. */
const STATEMENTS_NAMED = 64;
/** The only query options the named path takes (drizzle's): any other goes PGlite's own way. */
const NAMED_OPTIONS = new Set(['rowMode', 'parsers']);
/** PostgreSQL's answer when DDL changed what a named statement returns, or it is gone. */
const REPLAN_CODES = new Set(['0A000', '26000']);

type Query = PGlite['query'];
type Parsers = PGlite['parsers'];

interface Named {
  name: string;
  /** The type of each parameter, as PostgreSQL inferred it when parsing. */
  parameterTypes: number[];
}

/**
 * From now on `client.query` (top level, outside a transaction) names the texts it is asked
 * twice. Install before any other wrapper of `query`; transactions keep PGlite's own path.
 */
export function nameRepeatedStatements(client: PGlite): void {
  const statements = new PgliteNamedStatements(client);
  client.query = statements.query;
}

/** A call the named path hands back to PGlite's own `query`, after its locks are let go. */
const UNNAMED = Symbol('unnamed');

class PgliteNamedStatements {
  readonly #client: PGlite;
  readonly #unnamed: Query;
  /** Texts seen once (named on their next call), or never to be named (they failed to parse). */
  readonly #texts = new LruMap<string, 'seen' | 'unnamed'>(TEXTS_SEEN);
  /** Named statements by text, least recently used first. */
  readonly #named = new Map<string, Named>();
  /** Statements pushed out of `#named`, closed in PGlite with the next call. */
  readonly #toClose: string[] = [];
  /** Drizzle's parsers over PGlite's, once per parsers object (`#parsersFor`). */
  #mergedParsers = new WeakMap<object, Parsers>();
  #nextId = 0;

  constructor(client: PGlite) {
    this.#client = client;
    this.#unnamed = client.query.bind(client);
    const refreshArrayTypes = client.refreshArrayTypes.bind(client);
    client.refreshArrayTypes = async () => {
      await refreshArrayTypes();
      this.#mergedParsers = new WeakMap();
    };
  }

  readonly query = (async (text: string, params?: unknown[], options?: QueryOptions) => {
    if (!namable(options)) return this.#unnamed(text, params, options);
    if (!this.#named.has(text)) {
      const seen = this.#texts.get(text);
      if (seen === undefined) this.#texts.set(text, 'seen');
      if (seen !== 'seen') return this.#unnamed(text, params, options);
    }
    await this.#client._checkReady();
    const result = await this.#client._runExclusiveTransaction(() =>
      this.#client._runExclusiveQuery(() => this.#run(text, params ?? [], options)),
    );
    return result === UNNAMED ? this.#unnamed(text, params, options) : result;
  }) as Query;

  /** Within PGlite's locks: the named statement of `text` (parsed now if new), run. */
  async #run(
    text: string,
    params: unknown[],
    options: QueryOptions | undefined,
  ): Promise<Results | typeof UNNAMED> {
    const named = this.#used(text) ?? (await this.#prepare(text));
    if (named === undefined) return UNNAMED;
    try {
      return await this.#execute(named, params, options);
    } catch (error) {
      if (!REPLAN_CODES.has(codeOf(error))) throw withQuery(error, text, params, options);
      // DDL changed what it returns (a migration): the text goes PGlite's own way from now on.
      this.#named.delete(text);
      this.#texts.set(text, 'unnamed');
      this.#toClose.push(named.name);
      return UNNAMED;
    }
  }

  /** The named statement of `text`, marked as just used. */
  #used(text: string): Named | undefined {
    const named = this.#named.get(text);
    if (named === undefined) return undefined;
    this.#named.delete(text);
    this.#named.set(text, named);
    return named;
  }

  /** Parses `text` as a named statement; undefined when PostgreSQL refuses it (then never named). */
  async #prepare(text: string): Promise<Named | undefined> {
    const name = `tomodachi_lite_${(this.#nextId += 1)}`;
    let parameterTypes: number[];
    try {
      const messages = await this.#client.execProtocolStream(
        Buffer.concat([
          ...this.#closing(),
          protocol.serialize.parse({ name, text }),
          protocol.serialize.describe({ type: 'S', name }),
          protocol.serialize.sync(),
        ]),
      );
      parameterTypes = parse.parseDescribeStatementResults(messages);
    } catch {
      this.#texts.set(text, 'unnamed');
      return undefined;
    }
    const named = { name, parameterTypes };
    this.#texts.delete(text);
    this.#named.set(text, named);
    if (this.#named.size > STATEMENTS_NAMED) {
      const [oldestText, oldest] = this.#named.entries().next().value ?? [];
      if (oldestText !== undefined && oldest !== undefined) {
        this.#named.delete(oldestText);
        this.#toClose.push(oldest.name);
      }
    }
    return named;
  }

  async #execute(
    named: Named,
    params: unknown[],
    options: QueryOptions | undefined,
  ): Promise<Results> {
    const { serializers } = this.#client;
    const values = params.map((value, index) => {
      if (value === null || value === undefined) return null;
      const serialize = serializers[named.parameterTypes[index] ?? 0];
      return serialize === undefined ? textOf(value) : serialize(value);
    });
    const messages = await this.#client.execProtocolStream(
      Buffer.concat([
        ...this.#closing(),
        protocol.serialize.bind({ statement: named.name, values }),
        protocol.serialize.describe({ type: 'P' }),
        protocol.serialize.execute({}),
        protocol.serialize.sync(),
      ]),
    );
    const rowMode = options?.rowMode === undefined ? {} : { rowMode: options.rowMode };
    const [result] = parse.parseResults(messages, this.#parsersFor(options), rowMode);
    return result ?? { rows: [], fields: [] };
  }

  /**
   * Drizzle's parsers over PGlite's, copied once per parsers object (PGlite's own path copies
   * them all on every query), and again after `refreshArrayTypes` adds array types to PGlite's.
   */
  #parsersFor(options: QueryOptions | undefined): Parsers {
    const extra = options?.parsers;
    if (extra === undefined) return this.#client.parsers;
    let merged = this.#mergedParsers.get(extra);
    if (merged === undefined) {
      merged = { ...this.#client.parsers, ...(extra as Parsers) };
      this.#mergedParsers.set(extra, merged);
    }
    return merged;
  }

  /** Close messages for the statements pushed out, sent ahead of the next call's. */
  #closing(): Uint8Array[] {
    return this.#toClose.splice(0).map((name) => protocol.serialize.close({ type: 'S', name }));
  }
}

function namable(options: QueryOptions | undefined): boolean {
  return options === undefined || Object.keys(options).every((key) => NAMED_OPTIONS.has(key));
}

/** A value of a type PGlite has no serializer for (text, numbers): its text, as PGlite sends it. */
function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean')
    return String(value);
  return JSON.stringify(value);
}

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
}

/** As PGlite's own `query` marks its errors: the text, values and options that failed. */
function withQuery(
  error: unknown,
  text: string,
  params: unknown[],
  options: QueryOptions | undefined,
): unknown {
  if (error instanceof Error) Object.assign(error, { query: text, params, queryOptions: options });
  return error;
}
