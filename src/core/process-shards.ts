/** The shards one process connects, out of the bot's total (a shard child of the manager). */
export interface ProcessShards {
  shardIds: readonly number[];
  shardCount: number;
}
