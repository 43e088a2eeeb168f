import { describe, expect, it } from 'vitest';
import { RestartBackoff } from './restart-backoff.ts';
import { botProcessCount, identifyKey, planShardProcesses, shardLabel } from './shard-plan.ts';

describe('planShardProcesses', () => {
  it('runs one process per shard of the whole bot by default', () => {
    expect(planShardProcesses({ shardCount: 3, shardIds: undefined, shardsPerProcess: 1 })).toEqual(
      [
        { index: 0, shardIds: [0] },
        { index: 1, shardIds: [1] },
        { index: 2, shardIds: [2] },
      ],
    );
  });

  it('groups this host’s SHARD_IDS by SHARDS_PER_PROCESS', () => {
    expect(planShardProcesses({ shardCount: 8, shardIds: [2, 3, 5], shardsPerProcess: 2 })).toEqual(
      [
        { index: 0, shardIds: [2, 3] },
        { index: 1, shardIds: [5] },
      ],
    );
  });

  it('counts the bot’s processes, labels shards and keys IDENTIFY like Discord', () => {
    expect(botProcessCount(4, 1)).toBe(4);
    expect(botProcessCount(5, 2)).toBe(3);
    expect(shardLabel([0, 1])).toBe('0,1');
    expect([0, 1, 2, 3].map((shardId) => identifyKey(shardId, 2))).toEqual([0, 1, 0, 1]);
  });
});

describe('RestartBackoff', () => {
  it('doubles from 1 s while a process keeps dying early, up to 60 s, and starts over after a stable run', () => {
    const backoff = new RestartBackoff();
    expect([1, 2, 3, 4, 5, 6, 7, 8].map(() => backoff.next(500))).toEqual([
      1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000,
    ]);
    expect(backoff.next(120_000)).toBe(1_000);
    expect(backoff.next(10)).toBe(2_000);
  });
});
