/**
 * The chaos run's plan, drawn from the seed alone: when each member mentions the bot in which
 * channel, and which fault strikes when, with its parameters. The same seed and sizes give the
 * same plan on every machine; only how the bot's timing falls around it varies.
 */
import { mulberry32, type Prng } from './prng.ts';

export const FAULT_KINDS = [
  'db-connections-cut',
  'postgres-restart',
  'sigterm-restart',
  'sigkill-restart',
  'fresh-session',
  'resumed-session',
  'discord-5xx',
  'discord-429',
  'provider-errors',
  'provider-drops',
  'provider-stalls',
] as const;

export type FaultKind = (typeof FAULT_KINDS)[number];

/** Faults that need a PostgreSQL server of the run's own. */
export const DATABASE_FAULTS: ReadonlySet<FaultKind> = new Set([
  'db-connections-cut',
  'postgres-restart',
]);

export type PlannedFault =
  | { kind: 'db-connections-cut' | 'postgres-restart' | 'sigterm-restart' | 'sigkill-restart' }
  | { kind: 'fresh-session' | 'resumed-session' }
  | { kind: 'discord-5xx'; status: 500 | 502 | 503; requests: number }
  | {
      kind: 'discord-429';
      retryAfterMs: number;
      scope: 'user' | 'shared' | 'global';
      requests: number;
    }
  | { kind: 'provider-errors'; failure: 'overloaded' | 'rate_limit' | 'server'; requests: number }
  | { kind: 'provider-drops'; requests: number }
  | { kind: 'provider-stalls'; stallMs: number; requests: number };

export interface ScheduledFault {
  atMs: number;
  fault: PlannedFault;
}

export interface PlannedMention {
  /** 0-based, in posting order. */
  index: number;
  atMs: number;
  channel: number;
  member: number;
  /** A word found in no other text of the run: how the oracle finds this mention anywhere. */
  token: string;
}

export interface ChaosPlan {
  seed: number;
  durationMs: number;
  channels: number;
  members: number;
  mentions: PlannedMention[];
  faults: ScheduledFault[];
}

export interface PlanOptions {
  seed: number;
  durationMs: number;
  mentions: number;
  channels: number;
  members: number;
  kinds: readonly FaultKind[];
  /** On average one fault per this many milliseconds (every kind at least once). */
  faultEveryMs: number;
}

/** Mentions stop at this share of the duration; faults fall between the two shares below. */
const MENTIONS_END = 0.95;
const FAULTS_START = 0.05;
const FAULTS_END = 0.85;

export function drawPlan(options: PlanOptions): ChaosPlan {
  if (options.kinds.length === 0) throw new Error('drawPlan: no fault kinds');
  const random = mulberry32(options.seed);
  const mentionTimes = Array.from({ length: options.mentions }, () =>
    Math.round(random.next() * options.durationMs * MENTIONS_END),
  ).sort((a, b) => a - b);
  const mentions = mentionTimes.map((atMs, index): PlannedMention => ({
    index,
    atMs,
    channel: random.integer(0, options.channels - 1),
    member: random.integer(0, options.members - 1),
    token: `Q${String(index).padStart(4, '0')}z${random.integer(0, 0xffff).toString(36)}`,
  }));
  const count = Math.max(
    options.kinds.length,
    Math.round(options.durationMs / options.faultEveryMs),
  );
  const kinds = [
    ...random.shuffle(options.kinds),
    ...Array.from({ length: count - options.kinds.length }, () => random.pick(options.kinds)),
  ];
  const span = options.durationMs * (FAULTS_END - FAULTS_START);
  const times = kinds
    .map(() => Math.round(options.durationMs * FAULTS_START + random.next() * span))
    .sort((a, b) => a - b);
  const faults = kinds.map((kind, index) => ({
    atMs: times[index] ?? 0,
    fault: drawFault(kind, random),
  }));
  return {
    seed: options.seed,
    durationMs: options.durationMs,
    channels: options.channels,
    members: options.members,
    mentions,
    faults,
  };
}

function drawFault(kind: FaultKind, random: Prng): PlannedFault {
  switch (kind) {
    case 'discord-5xx':
      return {
        kind,
        status: random.pick([500, 502, 503] as const),
        requests: random.integer(2, 8),
      };
    case 'discord-429':
      return {
        kind,
        retryAfterMs: random.integer(100, 2_000),
        scope: random.pick(['user', 'shared', 'global'] as const),
        requests: random.integer(2, 10),
      };
    case 'provider-errors':
      return {
        kind,
        failure: random.pick(['overloaded', 'rate_limit', 'server'] as const),
        requests: random.integer(1, 4),
      };
    case 'provider-drops':
      return { kind, requests: random.integer(1, 3) };
    case 'provider-stalls':
      return { kind, stallMs: random.integer(1_000, 6_000), requests: random.integer(1, 3) };
    case 'db-connections-cut':
    case 'postgres-restart':
    case 'sigterm-restart':
    case 'sigkill-restart':
    case 'fresh-session':
    case 'resumed-session':
      return { kind };
  }
}

/** One line per fault, for the run's printout. */
export function describeFault(fault: PlannedFault): string {
  switch (fault.kind) {
    case 'discord-5xx':
      return `discord-5xx ${fault.status} ×${fault.requests}`;
    case 'discord-429':
      return `discord-429 ${fault.scope} retry-after ${fault.retryAfterMs} ms ×${fault.requests}`;
    case 'provider-errors':
      return `provider-errors ${fault.failure} ×${fault.requests}`;
    case 'provider-drops':
      return `provider-drops ×${fault.requests}`;
    case 'provider-stalls':
      return `provider-stalls ${fault.stallMs} ms ×${fault.requests}`;
    case 'db-connections-cut':
    case 'postgres-restart':
    case 'sigterm-restart':
    case 'sigkill-restart':
    case 'fresh-session':
    case 'resumed-session':
      return fault.kind;
  }
}
