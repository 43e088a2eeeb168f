/**
 * `npm run bench scale`: turns per second and event-loop lag with 1, 2 and 4 bot
 * processes on one PostgreSQL server (BENCH_DATABASE_URL; a fresh database per configuration,
 * dropped after it), the loopback Discord and an instant LLM stand-in in a child process
 * (loopback-world.ts), REST through `npm run rest-proxy`.
 *
 * The headline rows are sharded: one `npm start` with SHARD_COUNT=N (a ShardingManager and N
 * shard children), one guild per shard, the channels dealt round-robin, so each process hears
 * only its own guilds. The unsharded rows (N processes on one gateway connection: each hears
 * every message and the claims in PostgreSQL split the work) show why that matters.
 * BENCH_SCALE_MODES picks the modes (comma-separated: sharded, proxy, paced; default
 * "sharded,proxy"; "paced" = unsharded, each process pacing at 1/N, no proxy) and
 * BENCH_SCALE_PROCESSES the process counts (default "1,2,4"). BENCH_CPU_PROF_DIR: every bot
 * process writes a V8 CPU profile there when it stops (`--cpu-prof`; shard children too).
 *
 * Each configuration: SHARDED_CHANNELS_PER_PROCESS channels per process when sharded, CHANNELS
 * when not, MEMBERS_PER_CHANNEL members each; a warm-up round, then MEASURED_ROUNDS
 * rounds in which a channel's member @mentions the bot in each channel in the same tick and the round ends
 * when every channel has the bot's reply. Turns per second = measured turns / their wall time.
 * The loopback Discord's global limit is raised to GLOBAL_LIMIT per real second (as Discord
 * raises it for large bots, told to the bot with DISCORD_GLOBAL_RATE_LIMIT) so the table
 * measures the bot, not the 40/s. CPU per turn is read from /proc for the bot processes, the
 * proxy, the loopback world and the database's PostgreSQL backends: on a shared machine it is
 * steadier than turns per second.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import type { BenchRow } from './bench-kit.ts';
import { startNodeFlags } from '../tests/support/start-flags.ts';
import { prepareBenchDatabase } from './support/bench-database.ts';
import {
  BotFleet,
  freePort,
  processTreeCpuMs,
  scrapeGauge,
  type FleetProcess,
  type LogRecord,
} from './support/bot-fleet.ts';
import { CpuMeter } from './support/cpu-meter.ts';
import { BENCH_MODEL } from './support/in-process-bot.ts';
import { LoopbackWorld } from './support/loopback-world-client.ts';
import { startBots, type BenchBot, type ScaleMode } from './support/scale-fleet.ts';
import { printTable, toRows, type Measurement } from './support/scale-table.ts';
import { countedStatements } from './support/statement-count.ts';

const DEFAULT_PROCESS_COUNTS = [1, 2, 4];
const DEFAULT_MODES: ScaleMode[] = ['sharded', 'proxy'];
/** Unsharded: channels in all (every process hears each). */
const CHANNELS = 100;
/**
 * Sharded: channels per process, so each process carries the same load at 1, 2 and 4 (as
 * scaling out does). A process's CPU per turn depends on its own load — one process answering
 * 100 channels at once batches more work per wake-up than one answering 25 — so a fixed total
 * dealt over more processes measures that, not what a process added costs. 0: CHANNELS in all.
 */
const SHARDED_CHANNELS_PER_PROCESS = Number(process.env['BENCH_SCALE_CHANNELS_PER_PROCESS'] ?? 50);
/** A channel's mentions rotate over its members: each stays under the 10-a-minute limit. */
const MEMBERS_PER_CHANNEL = 4;
const MEASURED_ROUNDS = 8;
const WARM_UP_ROUNDS = 1;
const GLOBAL_LIMIT = 1_000;
/** Route buckets 10× Discord's speed: a channel's 5-per-5-s is not what this measures. */
const RATE_LIMIT_TIME_SCALE = 0.1;
const ROUND_DEADLINE_MS = 120_000;
/** prom-client samples the event loop every 10 ms; its histogram includes that period. */
const LAG_RESOLUTION_MS = 10;
const LOG_SETTLE_MS = 10_000;
const LOG_POLL_MS = 50;

export async function rows(): Promise<BenchRow[]> {
  if (!process.env['BENCH_DATABASE_URL']) {
    return [
      {
        name: 'scale: skipped (set BENCH_DATABASE_URL to a PostgreSQL server)',
        value: Number.NaN,
        unit: '',
      },
    ];
  }
  const measurements: Measurement[] = [];
  for (const mode of chosenModes()) {
    for (const processes of chosenProcessCounts()) {
      const measurement = await measure(mode, processes);
      console.log(
        `scale: ${mode} × ${processes}: ${measurement.turnsPerSecond.toFixed(1)} turns/s, ` +
          `${measurement.cpuMsPerTurn.bots.toFixed(1)} bot CPU ms/turn`,
      );
      measurements.push(measurement);
      if (mode === 'sharded' && processes === 1 && chosenProcessCounts().length > 1) {
        // The control: what a saturated machine alone does to one process's CPU per turn.
        measurements.push(await measure(mode, 1, { busyMachine: true }));
      }
    }
  }
  printTable(measurements, {
    rounds: MEASURED_ROUNDS,
    globalLimit: GLOBAL_LIMIT,
  });
  return measurements.flatMap((measurement) => toRows(measurement, measurements));
}

/** Processes that only burn a core each, until stopped. */
function spin(count: number): ChildProcess[] {
  return Array.from({ length: count }, () =>
    spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
  );
}

function stopSpinning(spinners: ChildProcess[]): void {
  for (const spinner of spinners.splice(0)) spinner.kill('SIGKILL');
}

function channelCount(mode: ScaleMode, processes: number): number {
  if (mode !== 'sharded' || SHARDED_CHANNELS_PER_PROCESS <= 0) return CHANNELS;
  return SHARDED_CHANNELS_PER_PROCESS * processes;
}

function chosenModes(): ScaleMode[] {
  const listed = process.env['BENCH_SCALE_MODES'];
  if (listed === undefined || listed.trim() === '') return DEFAULT_MODES;
  const modes = listed.split(',').map((mode) => mode.trim());
  const unknown = modes.filter((mode) => !['sharded', 'proxy', 'paced'].includes(mode));
  if (unknown.length > 0) throw new Error(`BENCH_SCALE_MODES: unknown ${unknown.join(', ')}`);
  return modes as ScaleMode[];
}

function chosenProcessCounts(): number[] {
  const listed = process.env['BENCH_SCALE_PROCESSES'];
  if (listed === undefined || listed.trim() === '') return DEFAULT_PROCESS_COUNTS;
  const counts = listed.split(',').map((count) => Number(count.trim()));
  if (counts.some((count) => !Number.isInteger(count) || count < 1))
    throw new Error(`BENCH_SCALE_PROCESSES: not a list of process counts: ${listed}`);
  return counts;
}

/** Every bot process may profile. */
function botFlags(): string[] {
  const directory = process.env['BENCH_CPU_PROF_DIR'];
  const flags = startNodeFlags();
  if (directory === undefined || directory === '') return flags;
  return [...flags, '--cpu-prof', `--cpu-prof-dir=${path.resolve(directory)}`];
}

/**
 * `busyMachine`: one endless loop per core runs beside the measured rounds (their CPU is counted
 * as "others"), as busy as the machine is with 4 processes on 2 cores.
 */
async function measure(
  mode: ScaleMode,
  processes: number,
  options: { busyMachine?: boolean } = {},
): Promise<Measurement> {
  const channels = channelCount(mode, processes);
  const busyMachine = options.busyMachine === true;
  const spinners: ChildProcess[] = [];
  const loadBefore = loadavg()[0] ?? Number.NaN;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bot-scale-'));
  const prepared = await prepareBenchDatabase(dataDir);
  const world = LoopbackWorld.start();
  const fleet = new BotFleet();
  try {
    const info = await world.call('setup', {
      channels,
      membersPerChannel: MEMBERS_PER_CHANNEL,
      ...(mode === 'sharded' ? { shards: processes } : {}),
      seededChannels: 0,
      turnsPerChannel: 0,
      rateLimitTimeScale: RATE_LIMIT_TIME_SCALE,
      database: prepared.database,
      globalRequestsPerSecond: GLOBAL_LIMIT,
    });
    if (prepared.database.kind !== 'postgres') throw new Error('scale needs PostgreSQL');
    const env: Record<string, string> = {
      DISCORD_TOKEN: info.token,
      DISCORD_API_URL: info.apiUrl,
      DISCORD_GLOBAL_RATE_LIMIT: String(GLOBAL_LIMIT),
      LOG_FORMAT: 'json',
      LOG_LEVEL: 'info',
      DATABASE_URL: prepared.database.url,
      BOT_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      OPENAI_BASE_URL: info.openAIBaseUrl,
      OPENAI_API_KEY: 'sk-bench-operator-key-0123456789',
      DEFAULT_PROVIDER: 'openai',
      DEFAULT_MODEL: BENCH_MODEL,
    };
    const proxy = mode === 'paced' ? undefined : await startProxy(fleet, env);
    if (proxy !== undefined) env['DISCORD_REST_PROXY'] = proxy.url;
    const started = await startBots({
      fleet,
      mode,
      processes,
      env,
      dataDir,
      nodeFlags: botFlags(),
    });
    const { bots } = started;
    const channelIds = info.channels.map((channel) => channel.channelId);
    const warmUpLost = await answerRounds(world, channelIds, WARM_UP_ROUNDS);
    await world.call('resetObservations', null);
    await finishedTurns(bots, channels * WARM_UP_ROUNDS - warmUpLost);
    // A scrape resets prom-client's lag histogram: the second one covers the measured rounds.
    await Promise.all(bots.map(({ metricsPort }) => lagP99Ms(metricsPort)));
    const meter = new CpuMeter({
      bots: () => started.processes.reduce((sum, running) => sum + running.cpuMs(), 0),
      proxy: () => proxy?.process.cpuMs() ?? 0,
      world: () => processTreeCpuMs(world.pid),
      prepared,
    });
    if (busyMachine) spinners.push(...spin(availableParallelism()));
    await meter.start();
    const metricsPorts = bots.map(({ metricsPort }) => metricsPort);
    const statementsBefore = await countedStatements(metricsPorts);
    const startedAt = performance.now();
    const lost = warmUpLost + (await answerRounds(world, channelIds, MEASURED_ROUNDS));
    const seconds = (performance.now() - startedAt) / 1000;
    const measuredTurns = channels * MEASURED_ROUNDS;
    const cpuMs = await meter.stop();
    stopSpinning(spinners);
    const lags = await Promise.all(bots.map(({ metricsPort }) => lagP99Ms(metricsPort)));
    const finished = await finishedTurns(
      bots,
      channels * (MEASURED_ROUNDS + WARM_UP_ROUNDS) - lost,
    );
    // After every turn logged its end: the statements that close a turn are counted too.
    const statements = (await countedStatements(metricsPorts)) - statementsBefore;
    const answered = new Set(finished.flat().map((record) => String(record['messageId'])));
    const report = await world.call('report', { channelIds, paragraphs: 1 });
    // A one-paragraph reply is one message: any more in a channel answered a message twice.
    const extraReplies = report.createsPerChannel.reduce(
      (sum, creates) => sum + Math.max(0, creates - MEASURED_ROUNDS),
      0,
    );
    const globalLimitHits = await world.call('globalLimitHits', null);
    const loadAfter = loadavg()[0] ?? Number.NaN;
    // Stopped backends have reported their transactions.
    await fleet.stopAll();
    const transactions = await prepared.transactions();
    return {
      mode,
      processes,
      channels,
      busyMachine,
      turnsPerSecond: measuredTurns / seconds,
      cpuMsPerTurn: {
        bots: cpuMs.bots / measuredTurns,
        proxy: cpuMs.proxy / measuredTurns,
        world: cpuMs.world / measuredTurns,
        database: cpuMs.database / measuredTurns,
        others:
          (cpuMs.machine - cpuMs.bots - cpuMs.proxy - cpuMs.world - cpuMs.database) / measuredTurns,
      },
      botBusyPercent: (100 * cpuMs.bots) / (seconds * 1000 * processes),
      machineBusyPercent: (100 * cpuMs.machine) / (seconds * 1000 * availableParallelism()),
      lagP99Ms: Math.max(...lags),
      duplicates: Math.max(finished.flat().length - answered.size, extraReplies),
      lost,
      globalLimitHits,
      databaseTransactionsPerTurn: transactions / answered.size,
      statementsPerTurn: statements / measuredTurns,
      split: finished.map((records) => records.length),
      load: { before: loadBefore, after: loadAfter },
    };
  } finally {
    stopSpinning(spinners);
    await fleet.stopAll();
    await world.close();
    await prepared.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** `rounds` rounds of a one-paragraph mention in every channel; the mentions left unanswered. */
async function answerRounds(
  world: LoopbackWorld,
  channelIds: string[],
  rounds: number,
): Promise<number> {
  let lost = 0;
  for (let round = 0; round < rounds; round += 1) {
    const outcome = await world.call('answerRound', {
      channelIds,
      paragraphs: 1,
      deadlineMs: ROUND_DEADLINE_MS,
    });
    lost += outcome.lost;
  }
  return lost;
}

async function startProxy(
  fleet: BotFleet,
  env: Record<string, string>,
): Promise<{ process: FleetProcess; url: string }> {
  const port = await freePort();
  const proxy = fleet.start({
    name: 'rest-proxy',
    script: 'scripts/rest-proxy.ts',
    env: {
      DISCORD_API_URL: env['DISCORD_API_URL'] ?? '',
      DISCORD_GLOBAL_RATE_LIMIT: String(GLOBAL_LIMIT),
      LOG_FORMAT: 'json',
      LOG_LEVEL: 'info',
      REST_PROXY_PORT: String(port),
    },
  });
  await proxy.waitFor((record) => record['msg'] === 'REST proxy listening', 'listening');
  return { process: proxy, url: `http://127.0.0.1:${port}/api` };
}

/**
 * "turn finished" records of every bot process, once `expected` have been logged: a turn logs
 * it just after its reply, so the last ones get a moment to arrive.
 */
async function finishedTurns(bots: readonly BenchBot[], expected: number): Promise<LogRecord[][]> {
  const read = () => bots.map((bot) => bot.records().filter(isFinishedTurn));
  for (let waited = 0; waited < LOG_SETTLE_MS; waited += LOG_POLL_MS) {
    if (read().flat().length >= expected) break;
    await delay(LOG_POLL_MS);
  }
  return read();
}

function isFinishedTurn(record: LogRecord): boolean {
  return record['msg'] === 'turn finished' && record['provider'] !== undefined;
}

async function lagP99Ms(metricsPort: number): Promise<number> {
  const seconds = await scrapeGauge(metricsPort, 'nodejs_eventloop_lag_p99_seconds');
  return Math.max(0, seconds * 1000 - LAG_RESOLUTION_MS);
}
