import { optionalText } from './config-fields.ts';
import type { ProcessShards } from '../../core/process-shards.ts';

/**
 * How this process takes part in sharding:
 * - `single`: no SHARD_COUNT — one process, one gateway connection (the default).
 * - `manager`: SHARD_COUNT set — `npm start` runs discord.js's ShardingManager, which starts
 *   one child process per SHARDS_PER_PROCESS shards of SHARD_IDS and runs no bot itself.
 * - `shard`: a child the manager started (discord.js sets SHARDING_MANAGER, SHARDS and
 *   SHARD_COUNT; the launcher adds SHARD_PROCESS_INDEX and SHARD_PROCESS_COUNT).
 */
export type ShardingConfig =
  | { role: 'single' }
  | {
      role: 'manager';
      /** Total shards of the bot across every host, or Discord's recommendation. */
      shardCount: number | 'auto';
      /** The shards this host runs (SHARD_IDS); undefined: all of them. */
      shardIds: readonly number[] | undefined;
      shardsPerProcess: number;
    }
  | {
      role: 'shard';
      /** The shards this process connects. */
      shardIds: readonly number[];
      shardCount: number;
      /** This process's place among its manager's children, from 0 (METRICS_PORT offset). */
      processIndex: number;
      /** Shard processes of the whole bot (for a per-process share of the global REST limit). */
      processCount: number;
    };

export type { ProcessShards };

/** A shard child's shards; undefined for an unsharded process (or the manager). */
export function processShards(sharding: ShardingConfig): ProcessShards | undefined {
  return sharding.role === 'shard'
    ? { shardIds: sharding.shardIds, shardCount: sharding.shardCount }
    : undefined;
}

/** `shard` on every log line and metric of a sharded process (`manager` for the launcher). */
export function shardBindings(sharding: ShardingConfig): Record<string, string> {
  if (sharding.role === 'single') return {};
  return { shard: sharding.role === 'manager' ? 'manager' : sharding.shardIds.join(',') };
}

const SHARD_ID_LIST = /^\d+(-\d+)?(,\d+(-\d+)?)*$/;
const WHOLE_NUMBER = /^\d{1,6}$/;
/** Far above any bot's shard count; stops `0-999999999` from building a huge list. */
const MAX_SHARD_RANGE = 100_000;

/** The environment keys sharding reads, checked with the rest of the configuration. */
export const shardingEnvironmentSchema = {
  SHARD_COUNT: optionalText.refine(
    (value) => value === undefined || value === 'auto' || positiveWhole(value),
    'must be a whole number of shards (1 or more) or auto (Discord’s recommendation)',
  ),
  SHARD_IDS: optionalText.refine(
    (value) => value === undefined || parseShardIds(value) !== undefined,
    'must list shard ids like 0-3 or 0,2,5',
  ),
  SHARDS_PER_PROCESS: optionalText.refine(
    (value) => value === undefined || positiveWhole(value),
    'must be a whole number of shards per process (1 or more)',
  ),
  SHARDING_MANAGER: optionalText,
  SHARDS: optionalText,
  SHARD_PROCESS_INDEX: optionalText,
  SHARD_PROCESS_COUNT: optionalText,
};

export type ShardingEnvironment = {
  [Key in keyof typeof shardingEnvironmentSchema]?: string | undefined;
};

/** The sharding role, or the problems with it (one line each, naming the key). */
export function parseSharding(
  values: ShardingEnvironment & { DATABASE_URL?: string | undefined },
): {
  sharding: ShardingConfig;
  problems: string[];
} {
  const single = { role: 'single' } as const;
  if (values.SHARDING_MANAGER === 'true' && values.SHARDS !== undefined) return shardChild(values);
  if (values.SHARD_COUNT === undefined) {
    const stray = (['SHARD_IDS', 'SHARDS_PER_PROCESS'] as const).filter(
      (key) => values[key] !== undefined,
    );
    return { sharding: single, problems: stray.map((key) => `${key} needs SHARD_COUNT`) };
  }
  const problems: string[] = [];
  if (values.DATABASE_URL === undefined) {
    problems.push(
      'SHARD_COUNT needs DATABASE_URL: sharding runs several processes, and the embedded database (PGlite) serves only one; point DATABASE_URL at PostgreSQL',
    );
  }
  const shardCount = values.SHARD_COUNT === 'auto' ? 'auto' : Number(values.SHARD_COUNT);
  const shardIds = values.SHARD_IDS === undefined ? undefined : parseShardIds(values.SHARD_IDS);
  const outside =
    shardCount === 'auto' ? [] : (shardIds ?? []).filter((shardId) => shardId >= shardCount);
  if (outside.length > 0 && typeof shardCount === 'number') {
    problems.push(
      `SHARD_IDS names shard ${outside.join(', ')}, but SHARD_COUNT is ${shardCount} (ids run from 0 to ${shardCount - 1})`,
    );
  }
  return {
    sharding: {
      role: 'manager',
      shardCount,
      shardIds,
      shardsPerProcess: Number(values.SHARDS_PER_PROCESS ?? '1'),
    },
    problems,
  };
}

function shardChild(values: ShardingEnvironment): {
  sharding: ShardingConfig;
  problems: string[];
} {
  const shardIds = parseShardsVariable(values.SHARDS ?? '');
  const shardCount = Number(values.SHARD_COUNT);
  if (shardIds === undefined || !Number.isInteger(shardCount) || shardCount < 1) {
    return {
      sharding: { role: 'single' },
      problems: [
        'SHARDS and SHARD_COUNT, set by the sharding manager, must be shard ids and a shard count',
      ],
    };
  }
  return {
    sharding: {
      role: 'shard',
      shardIds,
      shardCount,
      processIndex: Number(values.SHARD_PROCESS_INDEX ?? '0'),
      processCount: Number(values.SHARD_PROCESS_COUNT ?? '1'),
    },
    problems: [],
  };
}

/** `0-3`, `0,2,5` or both mixed (`0-1,4`): the ids in order, without repeats. */
export function parseShardIds(value: string): number[] | undefined {
  const compact = value.replace(/\s+/g, '');
  if (!SHARD_ID_LIST.test(compact)) return undefined;
  const ids = new Set<number>();
  for (const part of compact.split(',')) {
    const [first = 0, last = first] = part.split('-').map(Number);
    if (last < first || last - first > MAX_SHARD_RANGE) return undefined;
    for (let shardId = first; shardId <= last; shardId += 1) ids.add(shardId);
  }
  return [...ids].sort((left, right) => left - right);
}

/** discord.js's SHARDS: one id (`2`) or a JSON list (`[0,1]`). */
function parseShardsVariable(value: string): number[] | undefined {
  try {
    const parsed: unknown = JSON.parse(value);
    const list = Array.isArray(parsed) ? parsed : [parsed];
    const valid = list.length > 0 && list.every((id) => Number.isInteger(id) && Number(id) >= 0);
    return valid ? (list as number[]) : undefined;
  } catch {
    return undefined;
  }
}

function positiveWhole(value: string): boolean {
  return WHOLE_NUMBER.test(value) && Number(value) >= 1;
}
