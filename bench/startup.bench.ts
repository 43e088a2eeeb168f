/**
 * Start-up and memory at rest as an operator meets them: the real `npm start` command line
 * (read from package.json) in a child process, against the loopback Discord and an instant LLM
 * stand-in in another child (loopback-world.ts).
 *
 * 1. A configuration error (a bad LOG_LEVEL): from spawn to exit. The configuration is checked
 *    before the SDKs load, so the operator hears about a typo at once.
 * 2. The embedded first start: an empty DATA_DIR (PGlite creates and migrates its database);
 *    spawn → the gateway IDENTIFY (timed by the loopback Discord, on the epoch clock both
 *    processes share) and → the "connected to Discord" line; the process's peak RSS (the kernel's
 *    high-water mark, VmHWM) by then, and its RSS at rest (what a newcomer's bot holds).
 * 3. The same data directory started again (no migrations to run).
 * 4. With PostgreSQL (BENCH_DATABASE_URL set: a fresh database on that server, dropped after).
 * After each start the bot rests SETTLE_MS, then: RSS as the kernel reports it (no collection
 * forced) and the V8 heap after a full collection (what is live), written to a file on SIGUSR2
 * by a preloaded probe (support/memory-probe.mjs). Each figure is the median of RUNS starts; the machine is
 * shared with other work, so the load average is printed beside them.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as delay } from 'node:timers/promises';
import { percentile, type BenchRow } from './bench-kit.ts';
import { prepareBenchDatabase, type PreparedDatabase } from './support/bench-database.ts';
import { LoopbackWorld } from './support/loopback-world-client.ts';
import { startArgumentsAfterNode, startEntry } from '../tests/support/start-flags.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RUNS = 3;
const TARGETS = {
  configErrorMs: 1_000,
  firstStartMs: 8_000,
  firstStartPeakMb: 350,
  secondStartIdentifyMs: 2_000,
  postgresIdentifyMs: 1_000,
  embeddedRestRssMb: 200,
  postgresRestRssMb: 110,
  restHeapMb: 40,
};
/** A start that has not connected by then is reported as failed, not waited for forever. */
const START_CEILING_MS = 120_000;
/** How long the bot idles after connecting before its memory "at rest" is read. */
const SETTLE_MS = 3_000;
const PROBE_DEADLINE_MS = 10_000;
const PROBE_POLL_MS = 20;
const CONNECTED_LINE = 'connected to Discord';
const BYTES_PER_MB = 1024 * 1024;
const KILOBYTES_PER_MB = 1024;
/** Linux's USER_HZ is 100 on every common architecture. */
const MS_PER_CLOCK_TICK = 10;
/** A fixed 32-byte key, as an operator with PostgreSQL sets it (BOT_ENCRYPTION_KEY). */
const BENCH_ENCRYPTION_KEY = Buffer.alloc(32, 7).toString('base64');

interface StartOutcome {
  /** Spawn → the "connected" line. */
  connectedMs: number;
  /** Spawn → the gateway IDENTIFY. */
  identifyMs: number;
  /** CPU time (user + system) the process had used when it connected: load-independent. */
  connectedCpuMs: number;
  /** The kernel's high-water mark of the process's RSS when it connected. */
  peakRssMb: number;
  /** After SETTLE_MS idle. */
  restRssMb: number;
  /** V8 heap used after a full collection, after SETTLE_MS idle. */
  restHeapMb: number;
  /** Memory outside the V8 heap (buffers, WebAssembly memory) after SETTLE_MS idle. */
  restExternalMb: number;
}

/** The node arguments of `npm start`, so the bench starts exactly what operators start. */
function startArguments(): string[] {
  startEntry(); // dist/ built, as npm start's prestart does
  // The probe answers SIGUSR2 with a full collection first: the start script's --expose-gc
  // (which the bot uses to give memory back at rest) lets it.
  return ['--import', './bench/support/memory-probe.mjs', ...startArgumentsAfterNode()];
}

export async function rows(): Promise<BenchRow[]> {
  const configErrors: number[] = [];
  for (let run = 0; run < RUNS; run += 1) configErrors.push(await configErrorExit());
  const world = LoopbackWorld.start();
  const worldDir = mkdtempSync(path.join(tmpdir(), 'bot-bench-startup-world-'));
  const postgres = process.env['BENCH_DATABASE_URL'] ? await prepareBenchDatabase(worldDir) : null;
  try {
    const info = await world.call('setup', {
      channels: 1,
      seededChannels: 0,
      turnsPerChannel: 0,
      rateLimitTimeScale: 1,
      database: { kind: 'pglite', dataDir: path.join(worldDir, 'seed') },
    });
    const environment = {
      DISCORD_TOKEN: info.token,
      DISCORD_API_URL: info.apiUrl,
      DEFAULT_PROVIDER: 'openai',
      OPENAI_API_KEY: 'bench-key',
      OPENAI_BASE_URL: info.openAIBaseUrl,
      LOG_FORMAT: 'json',
    };
    const embedded = await embeddedStarts(world, environment);
    const server = postgres === null ? [] : await postgresStarts(world, environment, postgres);
    return [
      ...configErrorRows(configErrors),
      ...embeddedRows(embedded),
      ...postgresRows(server),
      { name: 'start-up: load average (1 min) at the end', value: loadavg()[0] ?? 0, unit: '' },
    ];
  } finally {
    await world.close();
    await postgres?.dispose();
    rmSync(worldDir, { recursive: true, force: true });
  }
}

async function embeddedStarts(
  world: LoopbackWorld,
  environment: Record<string, string>,
): Promise<{ first: StartOutcome[]; second: StartOutcome[] }> {
  const first: StartOutcome[] = [];
  const second: StartOutcome[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'bot-bench-startup-'));
    try {
      first.push(await startAndRest(world, { ...environment, DATA_DIR: dataDir }));
      second.push(await startAndRest(world, { ...environment, DATA_DIR: dataDir }));
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  return { first, second };
}

async function postgresStarts(
  world: LoopbackWorld,
  environment: Record<string, string>,
  postgres: PreparedDatabase,
): Promise<StartOutcome[]> {
  if (postgres.database.kind !== 'postgres') return [];
  const outcomes: StartOutcome[] = [];
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bot-bench-startup-pg-'));
  const serverEnvironment = {
    ...environment,
    DATA_DIR: dataDir,
    DATABASE_URL: postgres.database.url,
    BOT_ENCRYPTION_KEY: BENCH_ENCRYPTION_KEY,
  };
  try {
    // The first start migrates the fresh database; the measured ones start as a deploy does.
    await startAndRest(world, serverEnvironment);
    for (let run = 0; run < RUNS; run += 1)
      outcomes.push(await startAndRest(world, serverEnvironment));
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  return outcomes;
}

function median(outcomes: StartOutcome[], key: keyof StartOutcome): number {
  return percentile(
    outcomes.map((outcome) => outcome[key]),
    50,
  );
}

function row(name: string, value: number, unit: string, limit?: number): BenchRow {
  if (limit === undefined) return { name, value, unit };
  return { name, value, unit, target: `≤ ${limit}`, pass: value <= limit };
}

function configErrorRows(configErrors: number[]): BenchRow[] {
  const value = percentile(configErrors, 50);
  return [
    row('start-up: config error reported (spawn → exit), p50', value, 'ms', TARGETS.configErrorMs),
  ];
}

function embeddedRows(starts: { first: StartOutcome[]; second: StartOutcome[] }): BenchRow[] {
  const { first, second } = starts;
  const at = `, p50 of ${RUNS}`;
  return [
    row(
      `start-up: embedded first start, empty DATA_DIR → connected${at}`,
      median(first, 'connectedMs'),
      'ms',
      TARGETS.firstStartMs,
    ),
    row(
      `start-up: embedded first start, CPU time until connected${at}`,
      median(first, 'connectedCpuMs'),
      'ms',
    ),
    row(
      `start-up: embedded first start, peak RSS until connected${at}`,
      median(first, 'peakRssMb'),
      'MB',
      TARGETS.firstStartPeakMb,
    ),
    row(
      `at rest (embedded, after a first start): RSS, ${SETTLE_MS / 1000} s after connecting${at}`,
      median(first, 'restRssMb'),
      'MB',
      TARGETS.embeddedRestRssMb,
    ),
    row(
      `start-up: embedded second start, spawn → gateway IDENTIFY${at}`,
      median(second, 'identifyMs'),
      'ms',
      TARGETS.secondStartIdentifyMs,
    ),
    row(`start-up: embedded second start → connected${at}`, median(second, 'connectedMs'), 'ms'),
    row(
      `start-up: embedded second start, CPU time until connected${at}`,
      median(second, 'connectedCpuMs'),
      'ms',
    ),
    ...restRows('embedded', second, TARGETS.embeddedRestRssMb),
  ];
}

function postgresRows(starts: StartOutcome[]): BenchRow[] {
  if (starts.length === 0) {
    return [
      { name: 'start-up: PostgreSQL rows skipped (set BENCH_DATABASE_URL)', value: 0, unit: '' },
    ];
  }
  const at = `, p50 of ${RUNS}`;
  return [
    row(
      `start-up: PostgreSQL, spawn → gateway IDENTIFY${at}`,
      median(starts, 'identifyMs'),
      'ms',
      TARGETS.postgresIdentifyMs,
    ),
    row(
      `start-up: PostgreSQL, CPU time until connected${at}`,
      median(starts, 'connectedCpuMs'),
      'ms',
    ),
    row(`start-up: PostgreSQL, peak RSS until connected${at}`, median(starts, 'peakRssMb'), 'MB'),
    ...restRows('PostgreSQL', starts, TARGETS.postgresRestRssMb),
  ];
}

function restRows(label: string, starts: StartOutcome[], rssLimit: number): BenchRow[] {
  const at = `${SETTLE_MS / 1000} s after connecting, p50 of ${RUNS}`;
  return [
    row(`at rest (${label}): RSS, ${at}`, median(starts, 'restRssMb'), 'MB', rssLimit),
    row(
      `at rest (${label}): V8 heap used after a full GC, ${at}`,
      median(starts, 'restHeapMb'),
      'MB',
      TARGETS.restHeapMb,
    ),
    row(`at rest (${label}): external memory, ${at}`, median(starts, 'restExternalMb'), 'MB'),
  ];
}

/** A bad LOG_LEVEL: the bot must name it and exit non-zero. Spawn → exit in ms. */
async function configErrorExit(): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, startArguments().slice(3), {
    cwd: ROOT,
    env: { PATH: process.env.PATH, DISCORD_TOKEN: 'bench-token', LOG_LEVEL: 'loud' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const elapsedMs = performance.now() - started;
  if (code === 0 || !stderr.includes('LOG_LEVEL')) {
    throw new Error(`a bad LOG_LEVEL was not reported (exit ${code}): ${stderr.slice(0, 500)}`);
  }
  return elapsedMs;
}

/**
 * Starts the bot, waits for its "connected" line, lets it rest, reads its memory, then stops it
 * with SIGTERM and waits for it to exit.
 */
async function startAndRest(
  world: LoopbackWorld,
  environment: Record<string, string>,
): Promise<StartOutcome> {
  const spawnedAt = Date.now();
  const started = performance.now();
  const probeFile = path.join(mkdtempSync(path.join(tmpdir(), 'bot-bench-probe-')), 'memory.json');
  const child = spawn(process.execPath, startArguments(), {
    cwd: ROOT,
    env: { PATH: process.env.PATH, ...environment, BENCH_MEMORY_PROBE_FILE: probeFile },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await connected(child);
    const connectedMs = performance.now() - started;
    const connectedCpuMs = processCpuMs(child.pid ?? 0);
    const peakRssMb = kernelMemoryMb(child.pid ?? 0, 'VmHWM');
    const identifiedAt = (await world.call('identifies', null)).find((at) => at >= spawnedAt);
    await delay(SETTLE_MS);
    const restRssMb = kernelMemoryMb(child.pid ?? 0, 'VmRSS');
    const memory = await probeMemory(child, probeFile);
    return {
      connectedMs,
      connectedCpuMs,
      identifyMs: identifiedAt === undefined ? Number.NaN : identifiedAt - spawnedAt,
      peakRssMb,
      restRssMb,
      restHeapMb: memory.heapUsed / BYTES_PER_MB,
      restExternalMb: memory.external / BYTES_PER_MB,
    };
  } finally {
    if (child.exitCode === null && child.pid !== undefined) {
      process.kill(-child.pid, 'SIGTERM');
      await exited;
    }
    rmSync(path.dirname(probeFile), { recursive: true, force: true });
  }
}

/** Resolves at the bot's "connected to Discord" line; rejects if it exits or takes too long. */
function connected(child: ReturnType<typeof spawn>): Promise<void> {
  let output = '';
  return new Promise<void>((resolve, reject) => {
    const ceiling = setTimeout(
      () => reject(new Error(`no "${CONNECTED_LINE}" within ${START_CEILING_MS} ms`)),
      START_CEILING_MS,
    );
    const read = (chunk: Buffer): void => {
      output += chunk.toString();
      // Whole lines only: a chunk may end mid-line.
      if (
        !output
          .split('\n')
          .slice(0, -1)
          .some((line) => line.includes(CONNECTED_LINE))
      )
        return;
      clearTimeout(ceiling);
      resolve();
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(ceiling);
      reject(new Error(`the bot exited (${code}) before connecting: ${output.slice(-1_000)}`));
    });
  });
}

/** A line of /proc/<pid>/status ("VmRSS", "VmHWM") in MB. */
function kernelMemoryMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kilobytes = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1];
  return kilobytes === undefined ? Number.NaN : Number(kilobytes) / KILOBYTES_PER_MB;
}

/** utime + stime of /proc/<pid>/stat, in ms (clock ticks of 10 ms). */
function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name, which is in parentheses and may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return ticks * MS_PER_CLOCK_TICK;
}

async function probeMemory(
  child: ReturnType<typeof spawn>,
  file: string,
): Promise<NodeJS.MemoryUsage> {
  child.kill('SIGUSR2');
  for (let waited = 0; waited < PROBE_DEADLINE_MS; waited += PROBE_POLL_MS) {
    if (existsSync(file)) {
      const text = readFileSync(file, 'utf8');
      // Written in one call, but read it only once it parses.
      try {
        return JSON.parse(text) as NodeJS.MemoryUsage;
      } catch {
        // not whole yet
      }
    }
    await delay(PROBE_POLL_MS);
  }
  throw new Error(`the memory probe did not answer in ${PROBE_DEADLINE_MS} ms`);
}
