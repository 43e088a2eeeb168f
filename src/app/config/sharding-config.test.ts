import { describe, expect, it } from 'vitest';
import { parseConfig } from './config.ts';
import { ConfigError } from '../../core/errors.ts';
import { parseShardIds } from './sharding-config.ts';

const POSTGRES = {
  DISCORD_TOKEN: 'token',
  DATABASE_URL: 'postgres://db/bot',
  BOT_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
};

function problemsOf(environment: Record<string, string>): readonly string[] {
  try {
    parseConfig(environment);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('sharding configuration', () => {
  it('runs one unsharded process when SHARD_COUNT is unset', () => {
    expect(parseConfig({ DISCORD_TOKEN: 'token' }).sharding).toEqual({ role: 'single' });
  });

  it('makes a manager of a process given SHARD_COUNT, SHARD_IDS and SHARDS_PER_PROCESS', () => {
    expect(
      parseConfig({ ...POSTGRES, SHARD_COUNT: '8', SHARD_IDS: '0-1, 4,6', SHARDS_PER_PROCESS: '2' })
        .sharding,
    ).toEqual({ role: 'manager', shardCount: 8, shardIds: [0, 1, 4, 6], shardsPerProcess: 2 });
    expect(parseConfig({ ...POSTGRES, SHARD_COUNT: 'auto' }).sharding).toEqual({
      role: 'manager',
      shardCount: 'auto',
      shardIds: undefined,
      shardsPerProcess: 1,
    });
  });

  it('refuses SHARD_COUNT on the embedded database, saying sharding needs DATABASE_URL', () => {
    expect(problemsOf({ DISCORD_TOKEN: 'token', SHARD_COUNT: '4' })).toEqual([
      expect.stringMatching(/^SHARD_COUNT needs DATABASE_URL: .*PGlite/),
    ]);
  });

  it('names each bad sharding key on its own line', () => {
    const problems = problemsOf({
      ...POSTGRES,
      SHARD_COUNT: '0',
      SHARD_IDS: '3-1',
      SHARDS_PER_PROCESS: 'two',
    });
    expect(problems.map((problem) => problem.split(' ')[0]).sort()).toEqual([
      'SHARDS_PER_PROCESS',
      'SHARD_COUNT',
      'SHARD_IDS',
    ]);
  });

  it('checks SHARD_IDS against SHARD_COUNT', () => {
    expect(problemsOf({ ...POSTGRES, SHARD_COUNT: '4', SHARD_IDS: '2-5' })).toEqual([
      'SHARD_IDS names shard 4, 5, but SHARD_COUNT is 4 (ids run from 0 to 3)',
    ]);
    expect(problemsOf({ ...POSTGRES, SHARD_COUNT: 'auto', SHARD_IDS: '0-63' })).toEqual([]);
  });

  it('asks for SHARD_COUNT when SHARD_IDS or SHARDS_PER_PROCESS come without it', () => {
    expect(problemsOf({ ...POSTGRES, SHARD_IDS: '0-1', SHARDS_PER_PROCESS: '2' })).toEqual([
      'SHARD_IDS needs SHARD_COUNT',
      'SHARDS_PER_PROCESS needs SHARD_COUNT',
    ]);
  });

  it('reads the shards the discord.js manager gave a child process', () => {
    const child = {
      ...POSTGRES,
      SHARDING_MANAGER: 'true',
      SHARDS: '[2,3]',
      SHARD_COUNT: '4',
      SHARD_PROCESS_INDEX: '1',
      SHARD_PROCESS_COUNT: '2',
    };
    expect(parseConfig(child).sharding).toEqual({
      role: 'shard',
      shardIds: [2, 3],
      shardCount: 4,
      processIndex: 1,
      processCount: 2,
    });
    expect(parseConfig({ ...child, SHARDS: '3' }).sharding).toMatchObject({ shardIds: [3] });
  });

  it('parses shard id lists: ranges, single ids, both mixed, in order without repeats', () => {
    expect(parseShardIds('0-3')).toEqual([0, 1, 2, 3]);
    expect(parseShardIds('5,0,2,2')).toEqual([0, 2, 5]);
    expect(parseShardIds('0-1,4-5')).toEqual([0, 1, 4, 5]);
    expect(parseShardIds('a')).toBeUndefined();
    expect(parseShardIds('0-')).toBeUndefined();
    expect(parseShardIds('0-999999999')).toBeUndefined();
  });
});
