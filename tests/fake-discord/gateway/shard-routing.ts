/**
 * Discord's sharding rules, as the gateway applies them: a guild lives on shard
 * `(guild_id >> 22) % num_shards`; events without a guild (DMs) go to shard 0 only.
 */

/** The shard that receives DMs and every other event without a guild. */
export const DIRECT_MESSAGE_SHARD = 0;

/** How long one IDENTIFY holds its rate-limit bucket (Discord: 5 s per `max_concurrency` key). */
export const IDENTIFY_WINDOW_MS = 5_000;

/** `[shard_id, num_shards]` as sent in IDENTIFY. */
export type ShardPair = readonly [number, number];

/** The shard of `guildId` among `shardCount` shards (Discord's documented formula). */
export function shardOfGuild(guildId: string, shardCount: number): number {
  return Number((BigInt(guildId) >> 22n) % BigInt(shardCount));
}

/** Whether a session on `shard` receives an event about `guildId` (null: no guild, a DM). */
export function shardReceives(shard: ShardPair, guildId: string | null): boolean {
  const [shardId, shardCount] = shard;
  if (guildId === null) return shardId === DIRECT_MESSAGE_SHARD;
  return shardOfGuild(guildId, shardCount) === shardId;
}

/** IDENTIFY's `shard` field: `[0, 1]` when absent, undefined when Discord would close 4010. */
export function parseShardPair(value: unknown): ShardPair | undefined {
  if (value === undefined || value === null) return [0, 1];
  if (!Array.isArray(value) || value.length !== 2) return undefined;
  const [shardId, shardCount] = value as unknown[];
  if (!Number.isInteger(shardId) || !Number.isInteger(shardCount)) return undefined;
  const id = shardId as number;
  const count = shardCount as number;
  return count >= 1 && id >= 0 && id < count ? [id, count] : undefined;
}

/** One accepted IDENTIFY: which shard, and when (the fake's clock). */
export interface IdentifyRecord {
  shard: ShardPair;
  at: number;
  connectionId: number;
}

/**
 * The most IDENTIFYs that started within any `windowMs` (Discord allows `max_concurrency` per
 * 5 s: one per rate-limit key `shard_id % max_concurrency`).
 */
export function busiestIdentifyWindow(
  records: readonly IdentifyRecord[],
  windowMs = IDENTIFY_WINDOW_MS,
): number {
  const times = records.map((record) => record.at).sort((left, right) => left - right);
  let busiest = 0;
  let start = 0;
  for (let end = 0; end < times.length; end += 1) {
    while ((times[end] ?? 0) - (times[start] ?? 0) >= windowMs) start += 1;
    busiest = Math.max(busiest, end - start + 1);
  }
  return busiest;
}
