/** One child process of the sharding manager and the shards it connects. */
export interface ShardProcessPlan {
  /** Its place among this host's children, from 0 (METRICS_PORT + index). */
  index: number;
  shardIds: readonly number[];
}

/**
 * Splits this host's shards into processes of `shardsPerProcess` consecutive ids. `shardIds`
 * undefined means every shard of `shardCount` (one host runs the whole bot).
 */
export function planShardProcesses(options: {
  shardCount: number;
  shardIds: readonly number[] | undefined;
  shardsPerProcess: number;
}): ShardProcessPlan[] {
  const ids = options.shardIds ?? [...Array(options.shardCount).keys()];
  const plans: ShardProcessPlan[] = [];
  for (let start = 0; start < ids.length; start += options.shardsPerProcess) {
    plans.push({
      index: plans.length,
      shardIds: ids.slice(start, start + options.shardsPerProcess),
    });
  }
  return plans;
}

/**
 * Shard processes of the whole bot when every host uses the same SHARDS_PER_PROCESS: what one
 * process's share of the bot-wide REST budget is divided by.
 */
export function botProcessCount(shardCount: number, shardsPerProcess: number): number {
  return Math.ceil(shardCount / shardsPerProcess);
}

/** The label a shard process puts on its logs and metrics: `2`, or `0,1` for several. */
export function shardLabel(shardIds: readonly number[]): string {
  return shardIds.join(',');
}

/** Discord's IDENTIFY rate-limit key of a shard: `shard_id % max_concurrency`. */
export function identifyKey(shardId: number, maxConcurrency: number): number {
  return shardId % maxConcurrency;
}
