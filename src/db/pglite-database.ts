/**
 * The embedded PGlite database in DATA_DIR, locked to this process. Loaded only when no
 * DATABASE_URL is set (database.ts).
 */
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { BotError } from '../core/errors.ts';
import { PgliteControlBus } from './control-bus/pglite-control-bus.ts';
import { lockDataDir } from './data-dir-lock.ts';
import { MIGRATIONS_FOLDER, type DatabaseHandle, type DatabaseOptions } from './database.ts';
import { singleProcessLiveness } from './instance-liveness.ts';
import { lazily } from './lazily.ts';
import { startingFiles, unpackTemplate } from './pglite-template.ts';
import { applyMigrations } from './migrator.ts';
import { nameRepeatedStatements } from './pglite-named-statements.ts';
import { timePgliteQueries } from './query-timing.ts';
import * as schema from './schema.ts';

/**
 * The embedded database lives in the bot's own heap (WebAssembly memory never shrinks):
 * PostgreSQL's default 128 MB of shared buffers is far more cache than a bot's tables need.
 */
const PGLITE_START_PARAMS = [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'];

export async function openPglite(
  options: Extract<DatabaseOptions, { kind: 'pglite' }>,
): Promise<DatabaseHandle> {
  const releaseLock =
    options.dataDir === undefined ? () => Promise.resolve() : await lockDataDir(options.dataDir);
  let client: PGlite;
  try {
    const dataDir = options.dataDir === undefined ? undefined : path.resolve(options.dataDir);
    // A restore's tarball, else the template for a new database (see pglite-template.ts).
    const loadDataDir = options.loadDataDir ?? (await templateFor(dataDir));
    const pgliteOptions = {
      startParams: PGLITE_START_PARAMS,
      // PGlite's options take no explicit undefined: without a tarball, initdb makes the files.
      ...(loadDataDir === undefined ? {} : { loadDataDir }),
    };
    client = dataDir === undefined ? new PGlite(pgliteOptions) : new PGlite(dataDir, pgliteOptions);
    await client.waitReady;
    nameRepeatedStatements(client);
    if (options.onQuery !== undefined) timePgliteQueries(client, options.onQuery);
    yieldBeforeQueries(client);
  } catch (error) {
    await releaseLock();
    throw new BotError('database_open', 'could not open the embedded database', { cause: error });
  }
  const db = drizzlePglite({ client, schema });
  const bus = lazily(async () => {
    const opened = new PgliteControlBus({ client, logger: options.logger });
    await opened.listen();
    return opened;
  });
  return {
    db,
    kind: 'pglite',
    async migrate() {
      await applyMigrations(db, MIGRATIONS_FOLDER);
    },
    liveness: singleProcessLiveness(),
    controlBus: () => bus.get(),
    dumpDataDir: () => client.dumpDataDir('gzip'),
    async close() {
      await bus.opened()?.then(
        (opened) => opened.close(),
        () => undefined,
      );
      await client.close();
      await releaseLock();
    },
  };
}

/**
 * A new database in a directory is unpacked there before PGlite opens it (nothing for PGlite
 * to load); an in-memory one gets the template's tarball.
 */
async function templateFor(dataDir: string | undefined): Promise<Blob | undefined> {
  if (dataDir === undefined) return startingFiles();
  await unpackTemplate(dataDir);
  return undefined;
}

/**
 * PGlite runs each query on this thread, and a query issued when the one before is answered
 * runs within the same run of promise jobs: the turns of two hundred channels starting at once
 * ran their chains of queries as one block of seconds, with no timer, socket or gateway
 * heartbeat in between. Each top-level query first lets the event loop turn once, so a chain
 * leaves the loop a turn between its queries (queries issued in the same tick still run one
 * after another).
 */
function yieldBeforeQueries(client: PGlite): void {
  const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
  const query = client.query.bind(client);
  const exec = client.exec.bind(client);
  const transaction = client.transaction.bind(client);
  client.query = (async (...args: Parameters<typeof query>) => {
    await turn();
    return query(...args);
  }) as typeof client.query;
  client.exec = async (...args: Parameters<typeof exec>) => {
    await turn();
    return exec(...args);
  };
  client.transaction = (async (...args: Parameters<typeof transaction>) => {
    await turn();
    return transaction(...args);
  }) as typeof client.transaction;
}
