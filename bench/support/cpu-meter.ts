import { readFileSync } from 'node:fs';
import type { PreparedDatabase } from './bench-database.ts';
import { CLOCK_TICKS_PER_SECOND, processTreeCpuMs } from './bot-fleet.ts';

export interface CpuUse {
  bots: number;
  proxy: number;
  world: number;
  database: number;
  /** Every process on the machine (other engineers' test runs too), all cores together. */
  machine: number;
}

/**
 * CPU used between `start` and `stop` by each party. The database's share is its backends' CPU
 * (PostgreSQL runs one process per connection): those alive at `stop`, less what they had used
 * at `start`. A backend that closed in between is missed, so this share is a lower bound.
 * `machine` is the busy time of every core from /proc/stat: less ours, it is what other
 * processes took from the bench.
 */
export class CpuMeter {
  readonly #readers: { bots: () => number; proxy: () => number; world: () => number };
  readonly #prepared: PreparedDatabase;
  #before = { bots: 0, proxy: 0, world: 0, machine: 0 };
  #databaseBefore = new Map<number, number>();

  constructor(options: {
    bots: () => number;
    proxy: () => number;
    world: () => number;
    prepared: PreparedDatabase;
  }) {
    this.#readers = options;
    this.#prepared = options.prepared;
  }

  async start(): Promise<void> {
    const backends = await this.#prepared.serverProcessIds();
    this.#databaseBefore = new Map(backends.map((pid) => [pid, processTreeCpuMs(pid)]));
    this.#before = this.#read();
  }

  async stop(): Promise<CpuUse> {
    const now = this.#read();
    const backends = await this.#prepared.serverProcessIds();
    const database = backends.reduce(
      (sum, pid) => sum + processTreeCpuMs(pid) - (this.#databaseBefore.get(pid) ?? 0),
      0,
    );
    return {
      bots: now.bots - this.#before.bots,
      proxy: now.proxy - this.#before.proxy,
      world: now.world - this.#before.world,
      database,
      machine: now.machine - this.#before.machine,
    };
  }

  #read(): { bots: number; proxy: number; world: number; machine: number } {
    return {
      bots: this.#readers.bots(),
      proxy: this.#readers.proxy(),
      world: this.#readers.world(),
      machine: machineBusyMs(),
    };
  }
}

/** CPU ms every core has spent busy since boot (all but idle and iowait in /proc/stat). */
function machineBusyMs(): number {
  const [summary = ''] = readFileSync('/proc/stat', 'utf8').split('\n');
  const ticks = summary.trim().split(/\s+/).slice(1).map(Number);
  const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0);
  // guest time is already counted in user time
  const busy = ticks.slice(0, 8).reduce((sum, value) => sum + value, 0) - idle;
  return (busy * 1000) / CLOCK_TICKS_PER_SECOND;
}
