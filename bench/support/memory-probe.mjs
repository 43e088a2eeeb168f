// @ts-check
/**
 * Preloaded (`--import`) into a bot process the start-up bench spawns: on SIGUSR2 it runs a full
 * collection (the start script's --expose-gc allows it) and writes this process's
 * memory, as JSON, to BENCH_MEMORY_PROBE_FILE. So heap and external memory are read from inside
 * without changing what the bot loads: an IPC channel (how this was read before) loads Node's
 * child-process messaging into the bot, which an operator's bot does not have (by hand, 3 starts
 * each: RSS at rest about 2 MB higher with it; within the start-up bench's noise). Plain JavaScript on purpose: a TypeScript preload would load
 * Node's TypeScript stripper (about 17 MB of RSS) into a bot that runs without it.
 */
import { writeFileSync } from 'node:fs';
import process from 'node:process';

const file = process.env['BENCH_MEMORY_PROBE_FILE'];
if (file !== undefined && file !== '') {
  process.on('SIGUSR2', () => {
    /** @type {{ gc?: () => void }} */ (globalThis).gc?.();
    writeFileSync(file, JSON.stringify(process.memoryUsage()));
  });
}
