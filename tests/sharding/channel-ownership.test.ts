/**
 * Which process may recover a message: the one whose shards own its channel. Checked with the
 * real discord.js client, sharded in-process, against the loopback Discord.
 */
import type { Client } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { channelOnShards } from '../../src/bot/sharding/channel-ownership.ts';
import { connectClient } from '../fake-discord/discord-js-harness.ts';
import { startFakeDiscord, type FakeDiscord } from '../fake-discord/fake-discord.ts';

describe('channelOnShards', () => {
  let discord: FakeDiscord;
  const clients: Client[] = [];
  let channels: { shardZero: string; shardOne: string; dm: string };

  beforeAll(async () => {
    discord = await startFakeDiscord({ recommendedShards: 2 });
    const member = discord.createUser({ username: 'member' });
    const onShard = (shardId: number) => {
      const guild = discord.createGuild({ onShard: [shardId, 2] });
      return discord.createChannel({ guildId: guild.id, name: 'general' }).id;
    };
    channels = {
      shardZero: onShard(0),
      shardOne: onShard(1),
      dm: discord.openDirectMessage(member.id).id,
    };
  });
  afterAll(async () => {
    for (const client of clients) await client.destroy();
    await discord.close();
  });

  async function processOf(shardId: number): Promise<Client> {
    const client = await connectClient(discord, { shards: [shardId], shardCount: 2 });
    clients.push(client);
    return client;
  }

  it('gives a guild channel to its guild’s shard only, a DM to shard 0, a lost channel to anyone', async () => {
    const zero = await processOf(0);
    const one = await processOf(1);
    const owns = (client: Client, shardId: number, channelId: string) =>
      channelOnShards(client, channelId, { shardIds: [shardId], shardCount: 2 });
    expect(await owns(zero, 0, channels.shardZero)).toBe(true);
    expect(await owns(zero, 0, channels.shardOne)).toBe(false);
    expect(await owns(one, 1, channels.shardOne)).toBe(true);
    expect(await owns(one, 1, channels.shardZero)).toBe(false);
    expect(await owns(zero, 0, channels.dm)).toBe(true);
    expect(await owns(one, 1, channels.dm)).toBe(false);
    expect(await owns(one, 1, '999999999999999999')).toBe(true);
  });
});
