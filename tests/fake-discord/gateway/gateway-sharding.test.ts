/**
 * The loopback gateway shards like Discord: IDENTIFY's `[shard_id, num_shards]`, guild events
 * only on the owning shard, DMs on shard 0, 4010 for a bad shard, IDENTIFYs recorded for the
 * max_concurrency check — over a bare WebSocket and through discord.js's own sharding.
 */
import { GatewayIntentBits as Intent } from 'discord-api-types/v10';
import type { Client, Message } from 'discord.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectClient, nextEvent } from '../discord-js-harness.ts';
import { startFakeDiscord, type FakeDiscord } from '../fake-discord.ts';
import { RawGateway, type Payload } from './raw-gateway.ts';
import { busiestIdentifyWindow, shardOfGuild } from './shard-routing.ts';

const SHARD_COUNT = 4;
const INTENTS =
  Intent.Guilds | Intent.GuildMessages | Intent.MessageContent | Intent.DirectMessages;

let discord: FakeDiscord;
let guilds: { id: string; channelId: string }[];
let alice: string;
const open: RawGateway[] = [];
const clients: Client[] = [];

beforeEach(async () => {
  discord = await startFakeDiscord({ recommendedShards: SHARD_COUNT, maxConcurrency: 2 });
  alice = discord.createUser({ username: 'alice' }).id;
  guilds = [0, 1, 2, 3, 1].map((shardId, index) => {
    const guild = discord.createGuild({
      name: `Guild ${index}`,
      onShard: [shardId, SHARD_COUNT],
    });
    discord.addMember({ guildId: guild.id, userId: alice });
    return {
      id: guild.id,
      channelId: discord.createChannel({ guildId: guild.id, name: 'general' }).id,
    };
  });
});

afterEach(async () => {
  for (const gateway of open.splice(0)) gateway.socket.terminate();
  for (const client of clients.splice(0)) await client.destroy();
  await discord.close();
});

async function identifyShard(shard: unknown): Promise<RawGateway> {
  const gateway = new RawGateway(`${discord.origin.replace('http', 'ws')}/gateway?v=10`);
  open.push(gateway);
  await new Promise((resolve) => gateway.socket.once('open', resolve));
  gateway.identify(discord, INTENTS, discord.token, { shard });
  return gateway;
}

const dispatch = (type: string) => (payload: Payload) => payload.op === 0 && payload.t === type;

function guildOrder(guildId: string | null): number {
  return guildId === null ? guilds.length : guilds.findIndex((guild) => guild.id === guildId);
}

function guildIdsOf(gateway: RawGateway, type: string): string[] {
  return gateway.received
    .filter(dispatch(type))
    .map((payload) => (payload.d as { id?: string; guild_id?: string }).guild_id ?? '')
    .concat();
}

describe('a sharded gateway', () => {
  it('puts guilds on shard (id >> 22) % num_shards, as onShard asked', () => {
    expect(guilds.map((guild) => shardOfGuild(guild.id, SHARD_COUNT))).toEqual([0, 1, 2, 3, 1]);
  });

  it('sends each shard only its own guilds in READY and GUILD_CREATE', async () => {
    const shards = await Promise.all(
      [0, 1, 2, 3].map((shardId) => identifyShard([shardId, SHARD_COUNT])),
    );
    for (const [shardId, gateway] of shards.entries()) {
      const ready = await gateway.next(dispatch('READY'));
      const expected = guilds.filter((guild) => shardOfGuild(guild.id, SHARD_COUNT) === shardId);
      expect((ready.d as { shard: unknown }).shard).toEqual([shardId, SHARD_COUNT]);
      expect((ready.d as { guilds: { id: string }[] }).guilds.map((guild) => guild.id)).toEqual(
        expected.map((guild) => guild.id),
      );
      const last = expected.at(-1);
      if (last !== undefined)
        await gateway.next(
          (payload) =>
            dispatch('GUILD_CREATE')(payload) && (payload.d as { id: string }).id === last.id,
        );
      const created = gateway.received
        .filter(dispatch('GUILD_CREATE'))
        .map((payload) => (payload.d as { id: string }).id);
      expect(created).toEqual(expected.map((guild) => guild.id));
    }
  });

  it('dispatches a guild message only to the owning shard and a DM only to shard 0', async () => {
    const shards = await Promise.all(
      [0, 1, 2, 3].map((shardId) => identifyShard([shardId, SHARD_COUNT])),
    );
    await Promise.all(shards.map((gateway) => gateway.next(dispatch('READY'))));
    for (const guild of guilds)
      discord.postMessage({ authorId: alice, channelId: guild.channelId, content: 'hi' });
    const dm = discord.openDirectMessage(alice);
    discord.postMessage({ authorId: alice, channelId: dm.id, content: 'hello in private' });
    // A socket keeps order: once a shard has its last message, it has everything sent to it.
    const lastChannelOf = (shardId: number): string =>
      shardId === 0
        ? dm.id
        : (guilds.filter((guild) => shardOfGuild(guild.id, SHARD_COUNT) === shardId).at(-1)
            ?.channelId ?? '');
    await Promise.all(
      shards.map((gateway, shardId) =>
        gateway.next(
          (payload) =>
            dispatch('MESSAGE_CREATE')(payload) &&
            (payload.d as { channel_id: string }).channel_id === lastChannelOf(shardId),
        ),
      ),
    );
    for (const [shardId, gateway] of shards.entries()) {
      const expected = guilds
        .filter((guild) => shardOfGuild(guild.id, SHARD_COUNT) === shardId)
        .map((guild) => guild.id);
      expect(guildIdsOf(gateway, 'MESSAGE_CREATE')).toEqual(
        shardId === 0 ? [...expected, ''] : expected,
      );
    }
  });

  it('routes INTERACTION_CREATE to the shard of its guild', async () => {
    const shards = await Promise.all(
      [0, 1, 2, 3].map((shardId) => identifyShard([shardId, SHARD_COUNT])),
    );
    await Promise.all(shards.map((gateway) => gateway.next(dispatch('READY'))));
    const target = guilds[2];
    if (target === undefined) throw new Error('no third guild');
    const registered = await fetch(
      `${discord.apiUrl}/v10/applications/${discord.applicationId}/commands`,
      {
        method: 'PUT',
        headers: { authorization: `Bot ${discord.token}`, 'content-type': 'application/json' },
        body: JSON.stringify([{ name: 'ping', description: 'Ping', type: 1 }]),
      },
    );
    expect(registered.status).toBe(200);
    discord.interactions.invokeSlashCommand({
      userId: alice,
      channelId: target.channelId,
      command: 'ping',
    });
    await shards[2]?.next(dispatch('INTERACTION_CREATE'));
    expect(
      shards.map((gateway) => gateway.received.filter(dispatch('INTERACTION_CREATE')).length),
    ).toEqual([0, 0, 1, 0]);
  });

  it('closes 4010 for a shard id out of range, a zero shard count or a malformed pair', async () => {
    for (const shard of [[4, 4], [0, 0], [-1, 2], [1.5, 4], [1], 'zero']) {
      const gateway = await identifyShard(shard);
      expect(await gateway.closed).toBe(4010);
    }
    expect(discord.gateway.identifies()).toEqual([]);
  });

  it('records every IDENTIFY with its shard and time', async () => {
    const gateway = await identifyShard([3, SHARD_COUNT]);
    await gateway.next(dispatch('READY'));
    expect(discord.gateway.identifies()).toEqual([
      { shard: [3, SHARD_COUNT], at: expect.any(Number) as number, connectionId: 1 },
    ]);
    expect(discord.gateway.sessions().map((session) => session.shard)).toEqual([[3, SHARD_COUNT]]);
  });

  it('tells GET /gateway/bot the recommended shards and max_concurrency', async () => {
    const response = await fetch(`${discord.apiUrl}/v10/gateway/bot`, {
      headers: { authorization: `Bot ${discord.token}` },
    });
    expect(await response.json()).toMatchObject({
      shards: SHARD_COUNT,
      session_start_limit: { max_concurrency: 2 },
    });
  });

  it('serves discord.js sharding: each guild on its shard, DMs on shard 0, IDENTIFYs within max_concurrency', async () => {
    const client = await connectClient(discord, { shards: 'auto' });
    clients.push(client);
    expect(client.ws.shards.size).toBe(SHARD_COUNT);
    const received: { guildId: string | null; shardId: number }[] = [];
    client.on('messageCreate', (message: Message) => {
      received.push({ guildId: message.guildId, shardId: message.guild?.shardId ?? -1 });
    });
    for (const guild of guilds)
      discord.postMessage({ authorId: alice, channelId: guild.channelId, content: 'hi' });
    const dm = discord.openDirectMessage(alice);
    const direct = nextEvent(client, 'messageCreate', (message) => message.channelId === dm.id);
    discord.postMessage({ authorId: alice, channelId: dm.id, content: 'hello' });
    await direct;
    while (received.length < guilds.length + 1)
      await nextEvent(client, 'messageCreate', (message) => message.guildId !== null);
    received.sort((left, right) => guildOrder(left.guildId) - guildOrder(right.guildId));
    expect(received.filter((entry) => entry.guildId !== null)).toEqual(
      guilds.map((guild) => ({ guildId: guild.id, shardId: shardOfGuild(guild.id, SHARD_COUNT) })),
    );
    expect(received.filter((entry) => entry.guildId === null)).toHaveLength(1);
    const identifies = discord.gateway.identifies();
    expect(identifies.map((record) => record.shard[0]).sort()).toEqual([0, 1, 2, 3]);
    // discord.js waits 5 s per rate-limit key: 4 shards at max_concurrency 2 are two waves.
    expect(busiestIdentifyWindow(identifies)).toBeLessThanOrEqual(2);
  });
});
