/**
 * What one `bench/scale.bench.ts` configuration measured, and the two ways it is shown: one
 * Markdown table (the README's "Measured" section pastes it) and the runner's rows with targets.
 */
import { availableParallelism } from 'node:os';
import type { BenchRow } from '../bench-kit.ts';
import type { ScaleMode } from './scale-fleet.ts';

export interface Measurement {
  mode: ScaleMode;
  processes: number;
  /** Channels mentioned each round, over all processes. */
  channels: number;
  /** The control: one loop per core ran beside the measured rounds. */
  busyMachine: boolean;
  turnsPerSecond: number;
  /** Event-loop lag p99 of the worst bot process over the measured rounds. */
  lagP99Ms: number;
  duplicates: number;
  lost: number;
  globalLimitHits: number;
  /** Turns each bot process finished (shard order when sharded). */
  split: number[];
  /** CPU time per measured turn, in ms. */
  cpuMsPerTurn: {
    /** Every bot process together (and a shard manager). */
    bots: number;
    proxy: number;
    /** The loopback Discord and the LLM stand-in (one process): the bench's own cost. */
    world: number;
    /** The PostgreSQL backends serving the bench database. */
    database: number;
    /** Every other process on the machine (other test runs): CPU the bench did not get. */
    others: number;
  };
  /** PostgreSQL transactions per answered turn over the whole run (start-up included). */
  databaseTransactionsPerTurn: number;
  /**
   * SQL statements the bot processes sent per measured turn, counted in the processes while the
   * measured rounds ran (their background work in that time included).
   */
  statementsPerTurn: number;
  /** Bot CPU time over wall time, per bot process: 100 = one core kept busy. */
  botBusyPercent: number;
  /** Busy time of all cores over wall time × cores: 100 = the machine had nothing to spare. */
  machineBusyPercent: number;
  /** The machine's 1-minute load average when the configuration started and ended. */
  load: { before: number; after: number };
}

export interface TableSettings {
  rounds: number;
  globalLimit: number;
}

const MODE_LABELS: Record<ScaleMode, (processes: number) => string> = {
  sharded: () => 'sharded, rest-proxy',
  proxy: () => 'unsharded, rest-proxy',
  paced: (processes) => `unsharded, paced 1/${processes}`,
};

/** The 1-process measurement of the same mode. */
function baseline(measurement: Measurement, all: readonly Measurement[]): Measurement | undefined {
  return all.find(
    (other) => other.mode === measurement.mode && other.processes === 1 && !other.busyMachine,
  );
}

/** The same mode's 1-process measurement on a machine kept busy. */
function busyBaseline(
  measurement: Measurement,
  all: readonly Measurement[],
): Measurement | undefined {
  return all.find((other) => other.mode === measurement.mode && other.busyMachine);
}

export function speedUp(measurement: Measurement, all: readonly Measurement[]): number {
  const one = baseline(measurement, all);
  return one === undefined ? Number.NaN : measurement.turnsPerSecond / one.turnsPerSecond;
}

/**
 * The turns per second the machine could give this configuration if nothing else ran on it:
 * every core's time over the CPU one turn costs (bots, proxy, PostgreSQL, loopback world).
 */
export function machineCeiling(measurement: Measurement): number {
  const cpu = measurement.cpuMsPerTurn;
  return (availableParallelism() * 1000) / (cpu.bots + cpu.proxy + cpu.database + cpu.world);
}

/**
 * The speed-up N processes would reach with a core each (PostgreSQL, the proxy and Discord on
 * other machines, as in production): N × the 1-process bot CPU per turn over this one's.
 */
export function speedUpWithCores(measurement: Measurement, all: readonly Measurement[]): number {
  const one = baseline(measurement, all);
  if (one === undefined) return Number.NaN;
  return (measurement.processes * one.cpuMsPerTurn.bots) / measurement.cpuMsPerTurn.bots;
}

export function printTable(measurements: readonly Measurement[], settings: TableSettings): void {
  const header = [
    'processes',
    'mode',
    'channels',
    'turns/s',
    'speed-up',
    'speed-up with a core each',
    'machine ceiling turns/s',
    'lag p99 ms',
    'CPU ms/turn: bots',
    'proxy',
    'PostgreSQL',
    'loopback world',
    'others',
    'PG transactions/turn',
    'PG statements/turn',
    'bot busy %',
    'machine busy %',
    'turns per process',
    'duplicates',
    'lost',
    'global 429s',
    'load before → after',
  ];
  const body = measurements.map((measurement) => {
    const ratio = speedUp(measurement, measurements);
    const cpu = measurement.cpuMsPerTurn;
    return [
      String(measurement.processes),
      modeLabel(measurement),
      String(measurement.channels),
      measurement.turnsPerSecond.toFixed(1),
      Number.isNaN(ratio) ? '' : `${ratio.toFixed(2)}×`,
      `${speedUpWithCores(measurement, measurements).toFixed(2)}×`,
      machineCeiling(measurement).toFixed(0),
      measurement.lagP99Ms.toFixed(1),
      cpu.bots.toFixed(1),
      cpu.proxy.toFixed(1),
      cpu.database.toFixed(1),
      cpu.world.toFixed(1),
      cpu.others.toFixed(1),
      measurement.databaseTransactionsPerTurn.toFixed(1),
      measurement.statementsPerTurn.toFixed(1),
      measurement.botBusyPercent.toFixed(0),
      measurement.machineBusyPercent.toFixed(0),
      measurement.split.join(' / '),
      String(measurement.duplicates),
      String(measurement.lost),
      String(measurement.globalLimitHits),
      `${measurement.load.before.toFixed(1)} → ${measurement.load.after.toFixed(1)}`,
    ];
  });
  const widths = header.map((title, column) =>
    Math.max(title.length, ...body.map((line) => (line[column] ?? '').length)),
  );
  const print = (cells: string[]): void => {
    console.log(`| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(' | ')} |`);
  };
  console.log(
    `\nscale: ${settings.rounds} rounds per configuration, ` +
      `PostgreSQL, instant LLM, global limit ${settings.globalLimit}/s, ` +
      `${availableParallelism()} cores (load: 1-minute average)`,
  );
  print(header);
  console.log(`|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`);
  for (const line of body) print(line);
  console.log(
    '\nCPU ms/turn: bots (a shard manager included), the REST proxy, the PostgreSQL backends, the' +
      " loopback Discord + LLM (the bench's own) and every other process on the machine. Machine" +
      ' ceiling: cores ÷ our CPU per turn. Speed-up with a core each: N × the 1-process bot CPU' +
      ' per turn ÷ this one (PostgreSQL, proxy and Discord elsewhere, as in production).' +
      ' "Machine kept busy": one process while an endless loop per core runs beside it (their' +
      ' CPU in "others"), the control for what a saturated machine alone adds to CPU per turn.\n',
  );
}

/**
 * Bot CPU per turn over the 1-process figure of the same mode: what does not depend on free
 * cores. Flat (≤ 1.15) means a process added costs no CPU per turn beyond the turns it takes.
 */
export function cpuPerTurnGrowth(measurement: Measurement, all: readonly Measurement[]): number {
  const one = baseline(measurement, all);
  return one === undefined ? Number.NaN : measurement.cpuMsPerTurn.bots / one.cpuMsPerTurn.bots;
}

/** Upper bounds the rows are judged by (README "Capacity"). */
const CPU_GROWTH_TARGET = 1.15;
const STATEMENTS_PER_TURN_TARGET = 8;

function modeLabel(measurement: Measurement): string {
  const label = MODE_LABELS[measurement.mode](measurement.processes);
  return measurement.busyMachine ? `${label}, machine kept busy` : label;
}

/**
 * Bot CPU per turn over the same mode's 1-process figure on a machine kept as busy (one loop
 * per core): what a process added costs beyond what a saturated machine costs every process.
 */
export function cpuPerTurnGrowthBusy(
  measurement: Measurement,
  all: readonly Measurement[],
): number {
  const control = busyBaseline(measurement, all);
  return control === undefined
    ? Number.NaN
    : measurement.cpuMsPerTurn.bots / control.cpuMsPerTurn.bots;
}

export function toRows(measurement: Measurement, all: readonly Measurement[]): BenchRow[] {
  const label = `scale: ${measurement.processes} process${measurement.processes === 1 ? '' : 'es'}, ${modeLabel(measurement)}`;
  if (measurement.busyMachine)
    return [
      { name: `${label}: bot CPU per turn`, value: measurement.cpuMsPerTurn.bots, unit: 'ms' },
    ];
  const faults = measurement.duplicates + measurement.lost + measurement.globalLimitHits;
  const growth = cpuPerTurnGrowth(measurement, all);
  const growthBusy = cpuPerTurnGrowthBusy(measurement, all);
  return [
    { name: `${label}: turns per second`, value: measurement.turnsPerSecond, unit: 'turns/s' },
    // On two shared cores a speed-up cannot show (README "Capacity"): shown, not judged.
    { name: `${label}: speed-up vs 1 process`, value: speedUp(measurement, all), unit: '×' },
    ...(measurement.processes === 1
      ? []
      : [
          {
            name: `${label}: bot CPU per turn vs 1 process`,
            value: growth,
            unit: '×',
            target: `≤ ${CPU_GROWTH_TARGET}`,
            pass: growth <= CPU_GROWTH_TARGET,
          },
          ...(Number.isNaN(growthBusy)
            ? []
            : [
                {
                  name: `${label}: bot CPU per turn vs 1 process, machine kept busy`,
                  value: growthBusy,
                  unit: '×',
                },
              ]),
        ]),
    {
      name: `${label}: PostgreSQL statements per turn`,
      value: measurement.statementsPerTurn,
      unit: 'statements',
      target: `≤ ${STATEMENTS_PER_TURN_TARGET}`,
      pass: measurement.statementsPerTurn <= STATEMENTS_PER_TURN_TARGET,
    },
    {
      name: `${label}: speed-up with a core per process (from bot CPU per turn)`,
      value: speedUpWithCores(measurement, all),
      unit: '×',
    },
    {
      name: `${label}: bot CPU per turn`,
      value: measurement.cpuMsPerTurn.bots,
      unit: 'ms',
    },
    {
      name: `${label}: event-loop lag p99 (worst process)`,
      value: measurement.lagP99Ms,
      unit: 'ms',
    },
    {
      name: `${label}: duplicates / lost / global 429s`,
      value: faults,
      unit: `${measurement.duplicates} / ${measurement.lost} / ${measurement.globalLimitHits}`,
      target: '= 0',
      pass: faults === 0,
    },
  ];
}
