/**
 * The bot as operators run it, for `bench/bot.bench.ts`: `npm start`'s process (`node` with the
 * start script's flags, `dist/main.js`) configured by its environment, so what the bench reads
 * from it is the bot's alone — no TypeScript loader, no bench code in its memory or CPU time.
 * Read from the outside: its JSON log lines (turns finished, warnings), /proc (CPU time of the
 * process and of its main thread, resident memory) and its /metrics (event-loop lag).
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { startEntry, startNodeFlags } from '../../tests/support/start-flags.ts';
import {
  BotFleet,
  freePort,
  residentMb,
  scrapeGauge,
  scrapeMetrics,
  statCpuMs,
  type FleetProcess,
  type LogRecord,
} from './bot-fleet.ts';
import { BENCH_API_KEY, BENCH_MODEL } from './in-process-bot.ts';
import type { BenchDatabase } from './loopback-protocol.ts';

const LOG_WARN_LEVEL = 40;
/** prom-client's event-loop histogram timer period, included in its samples: subtracted. */
const LAG_RESOLUTION_MS = 10;
const RSS_SAMPLE_INTERVAL_MS = 25;

export interface BotProcessOptions {
  discordApiUrl: string;
  discordToken: string;
  openAIBaseUrl: string;
  database: BenchDatabase;
  /** The bot's DATA_DIR. */
  dataDir: string;
}

export interface LagReading {
  lagP99Ms: number;
  lagMaxMs: number;
}

export class BotProcess {
  readonly #fleet: BotFleet;
  readonly #process: FleetProcess;
  readonly #metricsPort: number;
  #peakRssMb = 0;
  #sampler: NodeJS.Timeout | undefined;

  private constructor(fleet: BotFleet, process: FleetProcess, metricsPort: number) {
    this.#fleet = fleet;
    this.#process = process;
    this.#metricsPort = metricsPort;
  }

  /**
   * Starts the bot and resolves once it is connected (guilds received). With
   * BENCH_CPU_PROFILE=<file> set, the process writes V8's CPU profile of its whole life there
   * when it exits (`--cpu-prof`).
   */
  static async start(options: BotProcessOptions): Promise<BotProcess> {
    const fleet = new BotFleet();
    const metricsPort = await freePort();
    const database: Record<string, string> =
      options.database.kind === 'postgres'
        ? { DATABASE_URL: options.database.url, DATA_DIR: options.dataDir }
        : { DATA_DIR: path.dirname(options.database.dataDir) };
    const running = fleet.start({
      name: 'bot',
      script: startEntry(),
      nodeFlags: [...startNodeFlags(), ...profileFlags()],
      env: {
        DISCORD_TOKEN: options.discordToken,
        DISCORD_API_URL: options.discordApiUrl,
        LOG_LEVEL: 'info',
        METRICS_PORT: String(metricsPort),
        BOT_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
        OPENAI_BASE_URL: options.openAIBaseUrl,
        OPENAI_API_KEY: BENCH_API_KEY,
        DEFAULT_PROVIDER: 'openai',
        DEFAULT_MODEL: BENCH_MODEL,
        ...database,
      },
    });
    const bot = new BotProcess(fleet, running, metricsPort);
    try {
      await running.waitFor((record) => record['msg'] === 'connected to Discord', 'connection');
    } catch (error) {
      await fleet.stopAll();
      throw error;
    }
    return bot;
  }

  /** Turns the bot finished with a reply (status complete), from its log. */
  completedTurns(): number {
    return this.#process.records.filter(isCompletedTurn).length;
  }

  /** Resolves once `count` turns have finished since the start (the bot's idle for a bench). */
  async turnsFinished(count: number): Promise<void> {
    let seen = 0;
    await this.#process.waitFor(
      (record) => isFinishedTurn(record) && ++seen >= count,
      `${count} finished turns`,
    );
  }

  warnings(): number {
    return this.#process.records.filter((record) => Number(record['level']) >= LOG_WARN_LEVEL)
      .length;
  }

  /** CPU time (user + system) of the whole process and of its main (JavaScript) thread, ms. */
  cpuMs(): { process: number; mainThread: number } {
    const pid = this.#process.pid;
    return {
      process: statCpuMs(`/proc/${pid}/stat`),
      mainThread: statCpuMs(`/proc/${pid}/task/${pid}/stat`),
    };
  }

  restingRssMb(): number {
    return residentMb(this.#process.pid).now;
  }

  /** V8's heap (used, reserved) and memory outside it (external, array buffers), in MB. */
  async memory(): Promise<{ heapUsedMb: number; heapTotalMb: number; externalMb: number }> {
    const gauge = await scrapeMetrics(this.#metricsPort);
    const mb = (name: string): number => gauge(name) / (1024 * 1024);
    return {
      heapUsedMb: mb('nodejs_heap_size_used_bytes'),
      heapTotalMb: mb('nodejs_heap_size_total_bytes'),
      externalMb: mb('nodejs_external_memory_bytes'),
    };
  }

  /** Starts watching: resident memory sampled, the event-loop lag histogram emptied. */
  async watch(): Promise<void> {
    await scrapeGauge(this.#metricsPort, 'nodejs_eventloop_lag_p99_seconds');
    this.#peakRssMb = this.restingRssMb();
    this.#sampler = setInterval(() => {
      this.#peakRssMb = Math.max(this.#peakRssMb, residentMb(this.#process.pid).now);
    }, RSS_SAMPLE_INTERVAL_MS);
  }

  /** Since `watch`: peak resident memory and event-loop lag (prom-client empties it per scrape). */
  async watched(): Promise<LagReading & { peakRssMb: number }> {
    clearInterval(this.#sampler);
    this.#peakRssMb = Math.max(this.#peakRssMb, this.restingRssMb());
    // Both gauges come from one collection of the histogram (emptied by it): one scrape.
    const gauge = await scrapeMetrics(this.#metricsPort);
    const lagMs = (name: string): number => Math.max(0, gauge(name) * 1000 - LAG_RESOLUTION_MS);
    return {
      lagP99Ms: lagMs('nodejs_eventloop_lag_p99_seconds'),
      lagMaxMs: lagMs('nodejs_eventloop_lag_max_seconds'),
      peakRssMb: this.#peakRssMb,
    };
  }

  /** Stops it as SIGTERM does (live turns finish first). */
  async stop(): Promise<void> {
    clearInterval(this.#sampler);
    await this.#fleet.stopAll();
  }
}

function isFinishedTurn(record: LogRecord): boolean {
  return record['msg'] === 'turn finished' && record['provider'] !== undefined;
}

function isCompletedTurn(record: LogRecord): boolean {
  return isFinishedTurn(record) && record['status'] === 'complete';
}

/** `--cpu-prof` flags writing to BENCH_CPU_PROFILE's file, when it is set. */
function profileFlags(): string[] {
  const file = process.env['BENCH_CPU_PROFILE'];
  if (!file) return [];
  return [
    '--cpu-prof',
    `--cpu-prof-dir=${path.dirname(path.resolve(file))}`,
    `--cpu-prof-name=${path.basename(file)}`,
    '--cpu-prof-interval=200',
  ];
}
