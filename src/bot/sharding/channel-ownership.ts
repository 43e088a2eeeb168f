import { ShardClientUtil, type Client } from 'discord.js';
import type { ProcessShards } from '../../core/process-shards.ts';

export type { ProcessShards };

/**
 * Whether `channelId` belongs to this process's shards: a guild channel to the shard of its
 * guild, a DM to shard 0 (where Discord sends DMs). A sharded process does not cache other
 * shards' guilds, so their channels cannot be fetched as usual: the channel is looked up
 * without its guild only to learn the guild id. Rejects when the lookup fails (the caller tells
 * a channel gone from Discord from a failure that may pass: only the first is anyone's).
 */
export async function channelOnShards(
  client: Client,
  channelId: string,
  shards: ProcessShards,
): Promise<boolean> {
  const channel =
    client.channels.cache.get(channelId) ??
    (await client.channels.fetch(channelId, { allowUnknownGuild: true, cache: false }));
  if (channel === null) return true;
  const guildId = 'guildId' in channel ? channel.guildId : null;
  const shardId =
    guildId === null ? 0 : ShardClientUtil.shardIdForGuildId(guildId, shards.shardCount);
  return shards.shardIds.includes(shardId);
}
