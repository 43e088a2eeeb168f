/**
 * Real bot processes (`node dist/main.js`, what `npm start` runs) and the REST proxy
 * (`node scripts/rest-proxy.ts`) for `bench/scale.bench.ts`: started with an environment,
 * their JSON log lines read, their /metrics scraped, and stopped with SIGTERM (SIGKILL if they
 * hang). Every process started here is ended by `stopAll`.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const STOP_DEADLINE_MS = 30_000;
/** A ceiling for start-up on a busy 2-core machine, not an expectation. */
const START_DEADLINE_MS = 180_000;
export const CLOCK_TICKS_PER_SECOND = Number(
  execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }),
);

export type LogRecord = Record<string, unknown>;

export interface FleetProcessOptions {
  name: string;
  script: string;
  env: Record<string, string>;
  /** Node flags, e.g. `--cpu-prof` (a shard manager hands its flags to its children). */
  nodeFlags?: readonly string[];
}

export class FleetProcess {
  readonly name: string;
  readonly records: LogRecord[] = [];
  readonly #child: ChildProcess;
  readonly #exited: Promise<void>;
  readonly #listeners = new Set<(record: LogRecord) => void>();

  constructor(options: FleetProcessOptions) {
    this.name = options.name;
    const nodeFlags = options.nodeFlags ?? [];
    this.#child = spawn(process.execPath, [...nodeFlags, path.resolve(ROOT, options.script)], {
      cwd: ROOT,
      env: { PATH: process.env['PATH'] ?? '', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.#exited = new Promise((resolve) => this.#child.once('exit', () => resolve()));
    const lines = createInterface({ input: this.#child.stdout! });
    lines.on('line', (line) => {
      let record: LogRecord;
      try {
        record = JSON.parse(line) as LogRecord;
      } catch {
        return;
      }
      this.records.push(record);
      for (const listener of this.#listeners) listener(record);
    });
    const errors = createInterface({ input: this.#child.stderr! });
    errors.on('line', (line) => process.stderr.write(`[${this.name}] ${line}\n`));
  }

  /** Resolves with the first log record `accepts` takes; rejects if the process exits first. */
  waitFor(accepts: (record: LogRecord) => boolean, what: string): Promise<LogRecord> {
    const seen = this.records.find(accepts);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const deadline = setTimeout(
        () => fail(`no ${what} within ${START_DEADLINE_MS} ms`),
        START_DEADLINE_MS,
      );
      const listener = (record: LogRecord): void => {
        if (!accepts(record)) return;
        cleanup();
        resolve(record);
      };
      const fail = (message: string): void => {
        cleanup();
        reject(new Error(`${this.name}: ${message}`));
      };
      const onExit = (): void => fail(`exited before ${what}`);
      const cleanup = (): void => {
        clearTimeout(deadline);
        this.#listeners.delete(listener);
        this.#child.off('exit', onExit);
      };
      this.#listeners.add(listener);
      this.#child.once('exit', onExit);
    });
  }

  /** The OS process id (0 before it started). */
  get pid(): number {
    return this.#child.pid ?? 0;
  }

  /** CPU time (user + system) the process has used so far, from /proc (Linux), in ms. */
  cpuMs(): number {
    return processTreeCpuMs(this.#child.pid ?? 0);
  }

  async stop(): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    this.#child.kill('SIGTERM');
    const deadline = setTimeout(() => this.#child.kill('SIGKILL'), STOP_DEADLINE_MS);
    await this.#exited;
    clearTimeout(deadline);
  }
}

/** Starts processes and stops every one of them again. */
export class BotFleet {
  readonly #processes: FleetProcess[] = [];

  start(options: FleetProcessOptions): FleetProcess {
    const started = new FleetProcess(options);
    this.#processes.push(started);
    return started;
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.#processes.splice(0).map((running) => running.stop()));
  }
}

/** CPU ms of a process and every living descendant (a shard manager's children). */
export function processTreeCpuMs(pid: number): number {
  let total = 0;
  try {
    total += statCpuMs(`/proc/${pid}/stat`);
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
    for (const child of children === '' ? [] : children.split(' '))
      total += processTreeCpuMs(Number(child));
  } catch {
    // The process has exited.
  }
  return total;
}

/**
 * CPU ms (user + system) a /proc `stat` file reports: a process's (`/proc/<pid>/stat`) or one of
 * its threads' (`/proc/<pid>/task/<tid>/stat`). Throws once the process is gone.
 */
export function statCpuMs(statFile: string): number {
  const stat = readFileSync(statFile, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
}

/** Resident memory of a process now and at its peak so far (VmRSS, VmHWM), in MB; NaN once gone. */
export function residentMb(pid: number): { now: number; peak: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kilobytes = (field: string): number =>
      Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
    return { now: kilobytes('VmRSS') / 1024, peak: kilobytes('VmHWM') / 1024 };
  } catch {
    return { now: Number.NaN, peak: Number.NaN };
  }
}

/** A TCP port free right now on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** One Prometheus gauge value from a /metrics text (first sample of `name`). */
export async function scrapeGauge(port: number, name: string): Promise<number> {
  return (await scrapeMetrics(port))(name);
}

/** One scrape of /metrics; the returned function reads a gauge from it (first sample, NaN if none). */
export async function scrapeMetrics(port: number): Promise<(name: string) => number> {
  const lines = (await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()).split('\n');
  return (name) => {
    const line = lines.find(
      (entry) => entry.startsWith(`${name} `) || entry.startsWith(`${name}{`),
    );
    return line === undefined ? Number.NaN : Number(line.split(' ').at(-1));
  };
}
