/**
 * `npm run bench migration`: how long an upgrade keeps the bot from writing a turn. On a
 * fresh PostgreSQL database (BENCH_DATABASE_URL; dropped afterwards) at migration 0004 with
 * 1M stored turns (MIGRATION_BENCH_ROWS to change), the remaining migrations are applied as
 * at start-up while a second connection inserts a turn every 20 ms, as the bot would: the
 * longest insert is the time writers stood blocked behind a migration's lock. Target: no
 * insert waits a full second.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { silentLogger } from '../src/core/logger.ts';
import { MIGRATIONS_FOLDER, openDatabase } from '../src/db/database.ts';
import { applyMigrations } from '../src/db/migrator.ts';
import type { BenchRow } from './bench-kit.ts';

const UPGRADE_FROM = 5; // migrations 0000–0004 applied
const PROBE_INTERVAL_MS = 20;
const BLOCKED_TARGET_MS = 1_000;

export async function rows(): Promise<BenchRow[]> {
  const serverUrl = process.env['BENCH_DATABASE_URL'];
  if (serverUrl === undefined || serverUrl === '')
    return [{ name: 'migration: skipped (set BENCH_DATABASE_URL)', value: Number.NaN, unit: '' }];
  const size = Number(process.env['MIGRATION_BENCH_ROWS'] ?? 1_000_000);
  const name = `tomodachi_bench_${randomBytes(6).toString('hex')}`;
  const root = mkdtempSync(path.join(tmpdir(), 'migration-bench-'));
  await admin(serverUrl, `create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  try {
    return await measure(url.toString(), size, root);
  } finally {
    await admin(serverUrl, `drop database if exists ${name} with (force)`);
    rmSync(root, { recursive: true, force: true });
  }
}

async function measure(url: string, size: number, root: string): Promise<BenchRow[]> {
  const handle = await openDatabase({ kind: 'postgres', url, logger: silentLogger, poolSize: 2 });
  const probe = new pg.Client({ connectionString: url });
  try {
    await applyMigrations(handle.db, olderMigrations(root, UPGRADE_FROM));
    await probe.connect();
    await seed(probe, size);
    const writes = probeWrites(probe);
    const started = performance.now();
    await applyMigrations(handle.db, MIGRATIONS_FOLDER);
    const seconds = (performance.now() - started) / 1000;
    const longestWriteMs = await writes.stop();
    return [
      { name: `migration: upgrade 0004 → latest, ${size} turns`, value: seconds, unit: 's' },
      {
        name: `migration: longest blocked turn insert during it`,
        value: longestWriteMs,
        unit: 'ms',
        target: `< ${BLOCKED_TARGET_MS}`,
        pass: longestWriteMs < BLOCKED_TARGET_MS,
      },
    ];
  } finally {
    await probe.end().catch(() => undefined);
    await handle.close();
  }
}

/** A copy of migrations/ with only its first `count` migrations. */
function olderMigrations(root: string, count: number): string {
  const folder = path.join(root, 'older');
  mkdirSync(path.join(folder, 'meta'), { recursive: true });
  const journalFile = path.join(MIGRATIONS_FOLDER, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalFile, 'utf8')) as {
    entries: Array<{ tag: string }>;
  };
  const entries = journal.entries.slice(0, count);
  for (const { tag } of entries)
    copyFileSync(path.join(MIGRATIONS_FOLDER, `${tag}.sql`), path.join(folder, `${tag}.sql`));
  writeFileSync(
    path.join(folder, 'meta', '_journal.json'),
    JSON.stringify({ ...journal, entries }),
  );
  return folder;
}

async function seed(client: pg.Client, size: number): Promise<void> {
  await client.query(`insert into scopes (id, kind) values ('700000000000000001', 'guild')`);
  await client.query(
    `insert into conversation_turns (id, scope_id, channel_id, role, author_id, content, status, created_at)
     select gen_random_uuid(), '700000000000000001', '9' || lpad((n % 100)::text, 17, '0'),
       case when n % 2 = 0 then 'user' else 'assistant' end, '800000000000000001',
       'Turn ' || n || ': a stored line of an old conversation, about as long as a chat message is.',
       'complete', now() - make_interval(secs => $1::int - n)
     from generate_series(1, $1::int) as n`,
    [size],
  );
  await client.query('analyze conversation_turns');
}

/** Inserts a turn every PROBE_INTERVAL_MS until stopped; resolves the slowest insert's ms. */
function probeWrites(client: pg.Client): { stop(): Promise<number> } {
  let running = true;
  let longest = 0;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      await client.query(
        `insert into conversation_turns (id, scope_id, channel_id, role, author_id, content, status)
         values (gen_random_uuid(), '700000000000000001', '900000000000000000', 'user',
           '800000000000000001', 'a turn written during the upgrade', 'complete')`,
      );
      longest = Math.max(longest, performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, PROBE_INTERVAL_MS));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return longest;
    },
  };
}

async function admin(serverUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
