/**
 * Loaded into a bot process with `--import` by bench/scale.bench.ts (a shard manager hands its
 * flags to its children, so each shard loads it too): counts the SQL statements the process
 * sends through `pg` — every query, BEGIN and COMMIT included, LISTEN/NOTIFY too — and writes
 * the count to BENCH_STATEMENT_COUNT_DIR/<pid> twice a second and at exit. PostgreSQL's own
 * count (pg_stat_statements) needs a server setting that is not always there.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';

const WRITE_EVERY_MS = 500;
const directory = process.env['BENCH_STATEMENT_COUNT_DIR'];

if (directory !== undefined && directory !== '') {
  let statements = 0;
  const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  pg.Client.prototype.query = function countedQuery(this: pg.Client, ...args: unknown[]) {
    statements += 1;
    return query.apply(this, args);
  } as typeof pg.Client.prototype.query;
  mkdirSync(directory, { recursive: true });
  const file = path.join(directory, String(process.pid));
  const write = (): void => writeFileSync(file, String(statements));
  setInterval(write, WRITE_EVERY_MS).unref();
  process.on('exit', write);
}
