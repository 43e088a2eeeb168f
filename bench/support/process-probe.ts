/**
 * Watches this process while a round runs: event-loop lag (perf_hooks'
 * monitorEventLoopDelay) and resident memory, sampled on a timer.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

/** The delay histogram's timer period; its samples include it, so it is subtracted. */
const LAG_RESOLUTION_MS = 10;
const RSS_SAMPLE_INTERVAL_MS = 25;
const NANOSECONDS_PER_MS = 1e6;
const BYTES_PER_MB = 1024 * 1024;

export interface ProbeReading {
  lagP50Ms: number;
  lagP99Ms: number;
  lagMaxMs: number;
  peakRssMb: number;
}

export class ProcessProbe {
  readonly #lag = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS });
  #peakRss = 0;
  #sampler: NodeJS.Timeout | undefined;

  start(): void {
    this.#lag.reset();
    this.#lag.enable();
    this.#peakRss = process.memoryUsage.rss();
    this.#sampler = setInterval(() => {
      this.#peakRss = Math.max(this.#peakRss, process.memoryUsage.rss());
    }, RSS_SAMPLE_INTERVAL_MS);
  }

  stop(): ProbeReading {
    this.#lag.disable();
    clearInterval(this.#sampler);
    this.#peakRss = Math.max(this.#peakRss, process.memoryUsage.rss());
    const lagMs = (nanoseconds: number): number =>
      Math.max(0, nanoseconds / NANOSECONDS_PER_MS - LAG_RESOLUTION_MS);
    return {
      lagP50Ms: lagMs(this.#lag.percentile(50)),
      lagP99Ms: lagMs(this.#lag.percentile(99)),
      lagMaxMs: lagMs(this.#lag.max),
      peakRssMb: this.#peakRss / BYTES_PER_MB,
    };
  }
}
