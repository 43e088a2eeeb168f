import type { PreparedDatabase } from './bench-database.ts';
import { processTreeCpuMs } from './bot-fleet.ts';

/**
 * CPU used between `start` and `stop` by each party. The database's share is its backends' CPU
 * (PostgreSQL runs one process per connection): those alive at `stop`, less what they had used
 * at `start`. A backend that closed in between is missed, so this share is a lower bound.
 */
export class CpuMeter {
  readonly #readers: { bots: () => number; proxy: () => number; world: () => number };
  readonly #prepared: PreparedDatabase;
  #before = { bots: 0, proxy: 0, world: 0 };
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

  async stop(): Promise<{ bots: number; proxy: number; world: number; database: number }> {
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
    };
  }

  #read(): { bots: number; proxy: number; world: number } {
    return {
      bots: this.#readers.bots(),
      proxy: this.#readers.proxy(),
      world: this.#readers.world(),
    };
  }
}
