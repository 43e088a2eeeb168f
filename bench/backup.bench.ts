/**
 * `npm run bench backup`: the operator's logical backup and restore (`node scripts/backup.ts
 * --logical`, `node scripts/restore.ts`, each its own process) on 100k and 1M stored turns, on
 * the embedded PGlite or, with BENCH_DATABASE_URL, PostgreSQL. Each script runs under
 * `/usr/bin/time`, which reports its peak resident memory. Both must be linear (past the
 * scripts' fixed cost, measured on an empty database, 1M rows take at most 13 times as long as
 * 100k: 10× the rows, with slack for a loaded machine) and flat in memory (1M rows peak within
 * 64 MB of 100k). BACKUP_BENCH_ROWS="10000,100000" runs other sizes (the last one is compared
 * with the first).
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { sql } from 'drizzle-orm';
import { silentLogger } from '../src/core/logger.ts';
import { openDatabase } from '../src/db/database.ts';
import type { BenchRow } from './bench-kit.ts';
import { prepareBenchDatabase, type PreparedDatabase } from './support/bench-database.ts';
import { seedStoredTurns } from './support/stored-turns.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TURNS_PER_CHANNEL = 10_000;
const LINEAR_SLACK = 1.3;
const MEMORY_SLACK_MB = 64;
const KILOBYTES_PER_MB = 1024;
const run = promisify(execFile);

interface Measured {
  rows: number;
  seconds: number;
  peakRssMb: number;
}

interface RoundTrip {
  label: string;
  backup: Measured;
  restore: Measured;
}

export async function rows(): Promise<BenchRow[]> {
  const sizes = (process.env['BACKUP_BENCH_ROWS'] ?? '100000,1000000').split(',').map(Number);
  const root = mkdtempSync(path.join(tmpdir(), 'backup-bench-'));
  try {
    const empty = await roundTrip(0, path.join(root, 'empty'));
    const results: RoundTrip[] = [];
    for (const size of sizes) results.push(await roundTrip(size, path.join(root, String(size))));
    return toRows(empty, results);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

async function roundTrip(size: number, directory: string): Promise<RoundTrip> {
  const source = await prepareBenchDatabase(path.join(directory, 'source'));
  const target = await prepareBenchDatabase(path.join(directory, 'target'));
  try {
    await seed(source, size);
    const file = path.join(directory, 'bot.jsonl.gz');
    const backup = await operator(['scripts/backup.ts', '--logical', '--out', file], source);
    const restore = await operator(['scripts/restore.ts', file], target);
    const restored = await countTurns(target);
    if (restored !== size) throw new Error(`restored ${restored} turns of ${size}`);
    return {
      label: source.label,
      backup: { rows: size, ...backup },
      restore: { rows: size, ...restore },
    };
  } finally {
    await Promise.all([source.dispose(), target.dispose()]);
  }
}

async function seed(prepared: PreparedDatabase, size: number): Promise<void> {
  const handle = await openDatabase({ ...prepared.database, logger: silentLogger });
  try {
    await handle.migrate();
    const channels = Array.from({ length: Math.ceil(size / TURNS_PER_CHANNEL) }, (_, index) => ({
      channelId: `9${String(index).padStart(17, '0')}`,
      memberId: `8${String(index).padStart(17, '0')}`,
    }));
    await seedStoredTurns(handle.db, {
      guildId: '700000000000000001',
      botUserId: '700000000000000002',
      channels,
      turnsPerChannel: Math.min(size, TURNS_PER_CHANNEL),
    });
  } finally {
    await handle.close();
  }
}

async function countTurns(prepared: PreparedDatabase): Promise<number> {
  const handle = await openDatabase({ ...prepared.database, logger: silentLogger });
  try {
    const result: unknown = await handle.db.execute(
      sql`select count(*)::int as count from conversation_turns`,
    );
    return (result as { rows: Array<{ count: number }> }).rows[0]?.count ?? 0;
  } finally {
    await handle.close();
  }
}

/** One operator script in its own process; its wall time and peak RSS from /usr/bin/time. */
async function operator(
  argv: string[],
  prepared: PreparedDatabase,
): Promise<{ seconds: number; peakRssMb: number }> {
  const report = path.join(tmpdir(), `backup-bench-time-${randomBytes(4).toString('hex')}`);
  const { database } = prepared;
  const environment: NodeJS.ProcessEnv = {
    PATH: process.env['PATH'],
    HOME: process.env['HOME'],
    BOT_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    ...(database.kind === 'postgres'
      ? { DATABASE_URL: database.url }
      : { DATA_DIR: path.dirname(database.dataDir) }),
  };
  try {
    await run('/usr/bin/time', ['-o', report, '-f', '%M %e', process.execPath, ...argv], {
      cwd: ROOT,
      env: environment,
      maxBuffer: 1024 * 1024,
    });
    const [kilobytes, seconds] = readFileSync(report, 'utf8').trim().split(/\s+/).map(Number);
    return { seconds: seconds ?? Number.NaN, peakRssMb: (kilobytes ?? 0) / KILOBYTES_PER_MB };
  } finally {
    rmSync(report, { force: true });
  }
}

function toRows(empty: RoundTrip, results: readonly RoundTrip[]): BenchRow[] {
  const rows: BenchRow[] = [];
  for (const step of ['backup', 'restore'] as const) {
    rows.push({
      name: `backup: ${step} of an empty database (the script's fixed cost)`,
      value: empty[step].seconds,
      unit: 's',
    });
  }
  for (const { label, backup, restore } of results) {
    for (const [step, measured] of [
      ['backup', backup],
      ['restore', restore],
    ] as const) {
      const name = `backup: ${step} ${measured.rows} turns (${label})`;
      rows.push({ name: `${name} time`, value: measured.seconds, unit: 's' });
      rows.push({ name: `${name} peak RSS`, value: measured.peakRssMb, unit: 'MB' });
    }
  }
  const first = results[0];
  const last = results.at(-1);
  if (first === undefined || last === undefined || first === last) return rows;
  for (const step of ['backup', 'restore'] as const)
    rows.push(
      ...verdicts({ step, fixed: empty[step].seconds, small: first[step], large: last[step] }),
    );
  return rows;
}

function verdicts(options: {
  step: string;
  fixed: number;
  small: Measured;
  large: Measured;
}): BenchRow[] {
  const { step, fixed, small, large } = options;
  const sizeRatio = large.rows / small.rows;
  const timeRatio = Math.max(0, large.seconds - fixed) / Math.max(0.001, small.seconds - fixed);
  const growth = large.peakRssMb - small.peakRssMb;
  return [
    {
      name: `backup: ${step} time past the fixed cost, ${large.rows} / ${small.rows} turns`,
      value: timeRatio,
      unit: '×',
      target: `≤ ${(sizeRatio * LINEAR_SLACK).toFixed(0)}`,
      pass: timeRatio <= sizeRatio * LINEAR_SLACK,
    },
    {
      name: `backup: ${step} peak RSS growth ${small.rows} → ${large.rows} turns`,
      value: growth,
      unit: 'MB',
      target: `≤ ${MEMORY_SLACK_MB}`,
      pass: growth <= MEMORY_SLACK_MB,
    },
  ];
}
