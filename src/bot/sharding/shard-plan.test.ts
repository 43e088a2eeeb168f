import { describe, expect, it } from 'vitest';
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
