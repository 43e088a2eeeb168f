/**
 * `npm run bench scale` (issue 13): turns per second and event-loop lag with 1, 2 and 4 real
 * bot processes (`node src/index.ts`) on one PostgreSQL server (BENCH_DATABASE_URL; a fresh
 * database per configuration, dropped after it), the loopback Discord and an instant LLM
 * stand-in in a child process (loopback-world.ts).
 *
 * Each configuration: CHANNELS channels, one member each; a warm-up round, then MEASURED_ROUNDS
 * rounds in which every channel's member @mentions the bot in the same tick and the round ends
 * when every channel has the bot's reply. Turns per second = measured turns / their wall time.
 * REST goes through `npm run rest-proxy` ("proxy" rows), or straight to the loopback Discord
 * with each process pacing at its 1/N share ("paced" rows). The loopback Discord's global
 * limit is raised to GLOBAL_LIMIT per real second (as Discord raises it for large bots, told
 * to the bot with DISCORD_GLOBAL_RATE_LIMIT) so the table measures the bot, not the 40/s.
 *
 * Without sharding on this branch, every process receives every message and the processes
 * split work only through the message claims in PostgreSQL (the first to claim answers). With
 * the shard launcher (SHARD_COUNT=N, one guild per shard), each process would get its own
 * guilds' messages instead; see "Switching to shards" in README "Scaling out".
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import type { BenchRow } from './bench-kit.ts';
import { prepareBenchDatabase } from './support/bench-database.ts';
import { BENCH_MODEL } from './support/in-process-bot.ts';
import {
  BotFleet,
  freePort,
  scrapeGauge,
  type FleetProcess,
  type LogRecord,
} from './support/bot-fleet.ts';
import { LoopbackWorld } from './support/loopback-world-client.ts';

const PROCESS_COUNTS = [1, 2, 4];
const PACED_PROCESS_COUNTS = [1, 2, 4];
const CHANNELS = 100;
const MEASURED_ROUNDS = 8;
const GLOBAL_LIMIT = 1_000;
/** Route buckets 10× Discord's speed: a channel's 5-per-5-s is not what this measures. */
const RATE_LIMIT_TIME_SCALE = 0.1;
const ROUND_DEADLINE_MS = 120_000;
/** prom-client samples the event loop every 10 ms; its histogram includes that period. */
const LAG_RESOLUTION_MS = 10;
const LOG_SETTLE_MS = 10_000;
const LOG_POLL_MS = 50;

type Mode = 'proxy' | 'paced';

interface Measurement {
  mode: Mode;
  processes: number;
  turnsPerSecond: number;
  lagP99Ms: number;
  duplicates: number;
  lost: number;
  globalLimitHits: number;
  split: number[];
  /** CPU time per measured turn: all bot processes together, and the REST proxy. */
  botCpuMsPerTurn: number;
  proxyCpuMsPerTurn: number;
  /** The machine's 1-minute load average when the configuration ended. */
  load: number;
}

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
  for (const processes of PROCESS_COUNTS) measurements.push(await measure('proxy', processes));
  for (const processes of PACED_PROCESS_COUNTS)
    measurements.push(await measure('paced', processes));
  printTable(measurements);
  return measurements.flatMap((measurement) => toRows(measurement, measurements));
}

async function measure(mode: Mode, processes: number): Promise<Measurement> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bot-scale-'));
  const prepared = await prepareBenchDatabase(dataDir);
  const world = LoopbackWorld.start();
  const fleet = new BotFleet();
  try {
    const info = await world.call('setup', {
      channels: CHANNELS,
      seededChannels: 0,
      turnsPerChannel: 0,
      rateLimitTimeScale: RATE_LIMIT_TIME_SCALE,
      database: prepared.database,
      globalRequestsPerSecond: GLOBAL_LIMIT,
    });
    if (prepared.database.kind !== 'postgres') throw new Error('scale needs PostgreSQL');
    const shared: Record<string, string> = {
      DISCORD_TOKEN: info.token,
      DISCORD_API_URL: info.apiUrl,
      DISCORD_GLOBAL_RATE_LIMIT: String(GLOBAL_LIMIT),
      LOG_FORMAT: 'json',
      LOG_LEVEL: 'info',
    };
    let proxy: FleetProcess | undefined;
    if (mode === 'proxy') {
      const port = await freePort();
      proxy = fleet.start({
        name: 'rest-proxy',
        script: 'scripts/rest-proxy.ts',
        env: { ...shared, REST_PROXY_PORT: String(port) },
      });
      await proxy.waitFor((record) => record['msg'] === 'REST proxy listening', 'listening');
      shared['DISCORD_REST_PROXY'] = `http://127.0.0.1:${port}/api`;
    } else {
      shared['BOT_PROCESS_COUNT'] = String(processes);
    }
    const encryptionKey = randomBytes(32).toString('base64');
    const bots: { bot: FleetProcess; metricsPort: number }[] = [];
    for (let index = 0; index < processes; index += 1) {
      const metricsPort = await freePort();
      const bot = fleet.start({
        name: `bot-${index}`,
        script: 'src/index.ts',
        env: {
          ...shared,
          DATABASE_URL: prepared.database.url,
          BOT_ENCRYPTION_KEY: encryptionKey,
          DATA_DIR: path.join(dataDir, `bot-${index}`),
          OPENAI_BASE_URL: info.openAIBaseUrl,
          OPENAI_API_KEY: 'sk-bench-operator-key-0123456789',
          DEFAULT_PROVIDER: 'openai',
          DEFAULT_MODEL: BENCH_MODEL,
          METRICS_PORT: String(metricsPort),
        },
      });
      bots.push({ bot, metricsPort });
    }
    await Promise.all(
      bots.map(({ bot }) =>
        bot.waitFor((record) => record['msg'] === 'connected to Discord', 'connection'),
      ),
    );
    const channelIds = info.channels.map((channel) => channel.channelId);
    const warmUp = await world.call('answerRound', {
      channelIds,
      paragraphs: 1,
      deadlineMs: ROUND_DEADLINE_MS,
    });
    await world.call('resetObservations', null);
    // A scrape resets prom-client's lag histogram: the second one covers the measured rounds.
    await Promise.all(bots.map(({ metricsPort }) => lagP99Ms(metricsPort)));
    const cpuBefore = { bots: sumCpuMs(bots), proxy: proxy?.cpuMs() ?? 0 };
    const started = performance.now();
    let lost = warmUp.lost;
    for (let round = 0; round < MEASURED_ROUNDS; round += 1) {
      const outcome = await world.call('answerRound', {
        channelIds,
        paragraphs: 1,
        deadlineMs: ROUND_DEADLINE_MS,
      });
      lost += outcome.lost;
    }
    const seconds = (performance.now() - started) / 1000;
    const measuredTurns = CHANNELS * MEASURED_ROUNDS;
    const botCpuMsPerTurn = (sumCpuMs(bots) - cpuBefore.bots) / measuredTurns;
    const proxyCpuMsPerTurn = ((proxy?.cpuMs() ?? 0) - cpuBefore.proxy) / measuredTurns;
    const lags = await Promise.all(bots.map(({ metricsPort }) => lagP99Ms(metricsPort)));
    // A turn logs "turn finished" just after its reply: give the last ones time to be logged.
    const expectedTurns = CHANNELS * (MEASURED_ROUNDS + 1) - lost;
    const finishedTurns = () => bots.map(({ bot }) => bot.records.filter(isFinishedTurn));
    for (let waited = 0; waited < LOG_SETTLE_MS; waited += LOG_POLL_MS) {
      if (finishedTurns().flat().length >= expectedTurns) break;
      await delay(LOG_POLL_MS);
    }
    const finished = finishedTurns();
    const answered = new Set(finished.flat().map((record) => String(record['messageId'])));
    const report = await world.call('report', { channelIds, paragraphs: 1 });
    const extraReplies = report.writesPerChannel.reduce(
      (sum, writes) => sum + Math.max(0, writes - MEASURED_ROUNDS),
      0,
    );
    return {
      mode,
      processes,
      turnsPerSecond: measuredTurns / seconds,
      botCpuMsPerTurn,
      proxyCpuMsPerTurn,
      lagP99Ms: Math.max(...lags),
      duplicates: Math.max(finished.flat().length - answered.size, extraReplies),
      lost,
      globalLimitHits: await world.call('globalLimitHits', null),
      split: finished.map((records) => records.length),
      load: loadavg()[0] ?? Number.NaN,
    };
  } finally {
    await fleet.stopAll();
    await world.close();
    await prepared.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function sumCpuMs(bots: readonly { bot: FleetProcess }[]): number {
  return bots.reduce((sum, { bot }) => sum + bot.cpuMs(), 0);
}

function isFinishedTurn(record: LogRecord): boolean {
  return record['msg'] === 'turn finished' && record['provider'] !== undefined;
}

async function lagP99Ms(metricsPort: number): Promise<number> {
  const seconds = await scrapeGauge(metricsPort, 'nodejs_eventloop_lag_p99_seconds');
  return Math.max(0, seconds * 1000 - LAG_RESOLUTION_MS);
}

/** The 1-process measurement of the same REST mode. */
function baseline(measurement: Measurement, all: readonly Measurement[]): Measurement | undefined {
  return all.find((other) => other.mode === measurement.mode && other.processes === 1);
}

function printTable(measurements: readonly Measurement[]): void {
  const header = [
    'processes',
    'REST',
    'turns/s',
    'speed-up',
    'lag p99 ms',
    'CPU ms/turn (bots + proxy)',
    'turns per process',
    'duplicates',
    'lost',
    'global 429s',
    'load',
  ];
  const body = measurements.map((measurement) => {
    const one = baseline(measurement, measurements);
    return [
      String(measurement.processes),
      measurement.mode === 'proxy' ? 'rest-proxy' : `paced 1/${measurement.processes}`,
      measurement.turnsPerSecond.toFixed(1),
      one === undefined ? '' : `${(measurement.turnsPerSecond / one.turnsPerSecond).toFixed(2)}×`,
      measurement.lagP99Ms.toFixed(1),
      `${measurement.botCpuMsPerTurn.toFixed(1)} + ${measurement.proxyCpuMsPerTurn.toFixed(1)}`,
      measurement.split.join(' / '),
      String(measurement.duplicates),
      String(measurement.lost),
      String(measurement.globalLimitHits),
      measurement.load.toFixed(1),
    ];
  });
  const widths = header.map((title, column) =>
    Math.max(title.length, ...body.map((line) => (line[column] ?? '').length)),
  );
  const print = (cells: string[]): void => {
    console.log(`| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(' | ')} |`);
  };
  console.log(
    `\nscale: ${CHANNELS} channels × ${MEASURED_ROUNDS} rounds per configuration, PostgreSQL, ` +
      `instant LLM, global limit ${GLOBAL_LIMIT}/s, ${availableParallelism()} cores (load: 1-min average at the end)`,
  );
  print(header);
  console.log(`|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`);
  for (const line of body) print(line);
  console.log('');
}

function toRows(measurement: Measurement, all: readonly Measurement[]): BenchRow[] {
  const label = `scale: ${measurement.processes} process${measurement.processes === 1 ? '' : 'es'}, ${measurement.mode}`;
  const one = baseline(measurement, all);
  const ratio = one === undefined ? Number.NaN : measurement.turnsPerSecond / one.turnsPerSecond;
  const rows: BenchRow[] = [
    { name: `${label}: turns per second`, value: measurement.turnsPerSecond, unit: 'turns/s' },
    {
      name: `${label}: speed-up vs 1 process`,
      value: ratio,
      unit: '×',
      ...(measurement.processes === 2 ? { target: '≥ 1.6', pass: ratio >= 1.6 } : {}),
    },
    {
      name: `${label}: event-loop lag p99 (worst process)`,
      value: measurement.lagP99Ms,
      unit: 'ms',
    },
    {
      name: `${label}: duplicates / lost / global 429s`,
      value: measurement.duplicates + measurement.lost + measurement.globalLimitHits,
      unit: `${measurement.duplicates} / ${measurement.lost} / ${measurement.globalLimitHits}`,
      target: '= 0',
      pass: measurement.duplicates + measurement.lost + measurement.globalLimitHits === 0,
    },
  ];
  return rows;
}
