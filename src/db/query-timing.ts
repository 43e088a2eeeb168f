import { performance } from 'node:perf_hooks';
import type { DatabaseQuerySample } from '../core/metrics.ts';

/** Told about every query the driver runs: its kind, how long it took and whether it failed. */
export type QueryObserver = (sample: DatabaseQuerySample) => void;

interface Queryable {
  query: (...args: never[]) => unknown;
}

const TRANSACTION_CONTROL = new Set(['begin', 'commit', 'rollback', 'savepoint', 'release']);
const DATA_STATEMENTS = new Set(['select', 'insert', 'update', 'delete']);

/** The statement's first keyword as a bounded label (a `with` query is reported as `other`). */
export function queryOperation(statement: unknown): string {
  const text =
    typeof statement === 'string' ? statement : (statement as { text?: unknown } | null)?.text;
  if (typeof text !== 'string') return 'other';
  const keyword = /^\s*([a-z]+)/i.exec(text)?.[1]?.toLowerCase() ?? '';
  if (DATA_STATEMENTS.has(keyword)) return keyword;
  return TRANSACTION_CONTROL.has(keyword) ? 'transaction' : 'other';
}

/**
 * Wraps a driver object's `query` (a pg client, PGlite, a PGlite transaction) in place so every
 * promise-returning call is timed. The result is returned untouched: the observer only watches.
 */
export function timeQueries(target: Queryable, observe: QueryObserver): void {
  const original = target.query.bind(target) as (...args: unknown[]) => unknown;
  const timed = (...args: unknown[]): unknown => {
    const startedAt = performance.now();
    const report = (ok: boolean): void =>
      observe({
        operation: queryOperation(args[0]),
        durationMs: performance.now() - startedAt,
        ok,
      });
    const callback = args.at(-1);
    if (typeof callback === 'function') {
      // pg's Pool runs its queries through the callback form.
      args[args.length - 1] = (error: unknown, ...results: unknown[]): unknown => {
        report(error === null || error === undefined);
        return (callback as (...values: unknown[]) => unknown)(error, ...results);
      };
      return original(...args);
    }
    const result = original(...args);
    if (result instanceof Promise) {
      result.then(
        () => report(true),
        () => report(false),
      );
    }
    return result;
  };
  target.query = timed;
}

/** PGlite: its own `query`, and the `query` of every transaction it opens. */
export function timePgliteQueries(
  client: Queryable & { transaction: (...args: never[]) => unknown },
  observe: QueryObserver,
): void {
  timeQueries(client, observe);
  const transaction = client.transaction.bind(client) as (
    callback: (tx: Queryable) => Promise<unknown>,
  ) => unknown;
  const timedTransaction = (callback: (tx: Queryable) => Promise<unknown>): unknown =>
    transaction((tx) => {
      timeQueries(tx, observe);
      return callback(tx);
    });
  client.transaction = timedTransaction;
}
