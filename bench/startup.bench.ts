/**
 * Start-up as an operator meets it, the real `npm start` command line
 * (`node --import ./scripts/check-runtime.mjs src/main.ts`) in a child process:
 *
 * 1. A configuration error (a bad LOG_LEVEL): from spawn to exit. The configuration is checked
 *    before the SDKs load, so the operator hears about a typo at once. Target ≤ 1 s.
 * 2. The embedded first start: an empty DATA_DIR (PGlite creates and migrates its database), the
 *    loopback Discord and an instant LLM stand-in in another child (loopback-world.ts); from spawn
 *    to the bot's "connected to Discord" line. Target ≤ 8 s on the 2-core reference machine.
 * 3. The same data directory started again (no migrations to run), for comparison.
 *
 * Each figure is the median of RUNS starts; the machine's load average is printed beside them.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { percentile, type BenchRow } from './bench-kit.ts';
import { LoopbackWorld } from './support/loopback-world-client.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const START_ARGUMENTS = ['--import', './scripts/check-runtime.mjs', 'src/main.ts'];
const RUNS = 3;
const TARGETS = { configErrorMs: 1_000, firstStartMs: 8_000 };
/** A start that has not connected by then is reported as failed, not waited for forever. */
const START_CEILING_MS = 120_000;
const CONNECTED_LINE = 'connected to Discord';

interface StartOutcome {
  /** Spawn to exit (config error) or to the "connected" line (start). */
  elapsedMs: number;
  /** What the bot itself logged as its start-up time (`startupMs`), when it connected. */
  reportedMs?: number | undefined;
}

export async function rows(): Promise<BenchRow[]> {
  const configErrors: number[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    configErrors.push((await configErrorExit()).elapsedMs);
  }
  const world = LoopbackWorld.start();
  const worldDir = mkdtempSync(path.join(tmpdir(), 'bot-bench-startup-world-'));
  const firstStarts: number[] = [];
  const warmStarts: number[] = [];
  try {
    const info = await world.call('setup', {
      channels: 1,
      seededChannels: 0,
      turnsPerChannel: 0,
      rateLimitTimeScale: 1,
      database: { kind: 'pglite', dataDir: worldDir },
    });
    const environment = {
      DISCORD_TOKEN: info.token,
      DISCORD_API_URL: info.apiUrl,
      DEFAULT_PROVIDER: 'openai',
      OPENAI_API_KEY: 'bench-key',
      OPENAI_BASE_URL: info.openAIBaseUrl,
      LOG_FORMAT: 'json',
    };
    for (let run = 0; run < RUNS; run += 1) {
      const dataDir = mkdtempSync(path.join(tmpdir(), 'bot-bench-startup-'));
      try {
        firstStarts.push(
          (await startUntilConnected({ ...environment, DATA_DIR: dataDir })).elapsedMs,
        );
        warmStarts.push(
          (await startUntilConnected({ ...environment, DATA_DIR: dataDir })).elapsedMs,
        );
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    }
  } finally {
    await world.close();
    rmSync(worldDir, { recursive: true, force: true });
  }
  const configErrorMs = percentile(configErrors, 50);
  const firstStartMs = percentile(firstStarts, 50);
  return [
    {
      name: 'start-up: config error reported (spawn → exit), p50',
      value: configErrorMs,
      unit: 'ms',
      target: `≤ ${TARGETS.configErrorMs}`,
      pass: configErrorMs <= TARGETS.configErrorMs,
    },
    {
      name: 'start-up: embedded first start (empty DATA_DIR → connected), p50',
      value: firstStartMs,
      unit: 'ms',
      target: `≤ ${TARGETS.firstStartMs}`,
      pass: firstStartMs <= TARGETS.firstStartMs,
    },
    {
      name: 'start-up: embedded second start (same DATA_DIR → connected), p50',
      value: percentile(warmStarts, 50),
      unit: 'ms',
    },
    { name: 'start-up: load average (1 min) at the end', value: loadavg()[0] ?? 0, unit: '' },
  ];
}

/** A bad LOG_LEVEL: the bot must name it and exit non-zero. */
async function configErrorExit(): Promise<StartOutcome> {
  const started = performance.now();
  const child = spawn(process.execPath, START_ARGUMENTS, {
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
  return { elapsedMs };
}

/** Starts the bot, waits for its "connected" line, then stops it with SIGTERM and waits. */
async function startUntilConnected(environment: Record<string, string>): Promise<StartOutcome> {
  const started = performance.now();
  const child = spawn(process.execPath, START_ARGUMENTS, {
    cwd: ROOT,
    env: { PATH: process.env.PATH, ...environment },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  try {
    return await new Promise<StartOutcome>((resolve, reject) => {
      const ceiling = setTimeout(
        () => reject(new Error(`no "${CONNECTED_LINE}" within ${START_CEILING_MS} ms`)),
        START_CEILING_MS,
      );
      const read = (chunk: Buffer): void => {
        output += chunk.toString();
        // Whole lines only: a chunk may end mid-line.
        for (const line of output.split('\n').slice(0, -1)) {
          if (!line.includes(CONNECTED_LINE)) continue;
          clearTimeout(ceiling);
          const reported = (JSON.parse(line) as { startupMs?: number }).startupMs;
          resolve({ elapsedMs: performance.now() - started, reportedMs: reported });
          return;
        }
      };
      child.stdout.on('data', read);
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.once('exit', (code) => {
        clearTimeout(ceiling);
        reject(new Error(`the bot exited (${code}) before connecting: ${output.slice(-1_000)}`));
      });
    });
  } finally {
    if (child.exitCode === null && child.pid !== undefined) {
      process.kill(-child.pid, 'SIGTERM');
      await exited;
    }
  }
}
