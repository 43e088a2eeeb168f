/**
 * Which process may recover a message: the one whose shards own its channel. Checked with the
 * real discord.js client, sharded in-process, against the loopback Discord. A lookup that fails
 * for a moment, or a guild another process holds, never settles a message unanswered.
 */
import type { Client } from 'discord.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DeliveryPort } from '../../src/bot/delivery/delivery-port.ts';
import { recoverUnanswered } from '../../src/bot/recovery/unanswered-recovery.ts';
import { channelOnShards } from '../../src/bot/sharding/channel-ownership.ts';
import { systemClock } from '../../src/core/clock.ts';
import { silentLogger } from '../../src/core/logger.ts';
import { claimMessage, RELEASED_CLAIM, unsettledClaims } from '../../src/db/claim-repository.ts';
import { testBackends, type TestDatabase } from '../support/test-database.ts';
import { connectClient, nextEvent } from '../fake-discord/discord-js-harness.ts';
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

  it('gives a guild channel to its guild’s shard only, a DM to shard 0; a lost one is an error', async () => {
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
    // Discord's own answer: recovery settles a lost channel's message (whichever shard looks).
    await expect(owns(one, 1, '999999999999999999')).rejects.toMatchObject({ code: 10003 });
  });
});

describe('recovering in a sharded process', () => {
  let discord: FakeDiscord;
  let database: TestDatabase;
  let zero: Client;
  let channels: { shardZero: string; shardOne: string };
  let member: string;
  const SHARDS = { shardIds: [0], shardCount: 2 };

  beforeAll(async () => {
    discord = await startFakeDiscord({ recommendedShards: 2 });
    member = discord.createUser({ username: 'member' }).id;
    const onShard = (shardId: number) => {
      const guild = discord.createGuild({ onShard: [shardId, 2] });
      discord.addMember({ guildId: guild.id, userId: member });
      return discord.createChannel({ guildId: guild.id, name: 'general' }).id;
    };
    channels = { shardZero: onShard(0), shardOne: onShard(1) };
    const [backend] = testBackends();
    database = await backend!.open();
    await database.migrate();
    zero = await connectClient(discord, { shards: [0], shardCount: 2 });
  });
  afterEach(() => discord.faults.clear());
  afterAll(async () => {
    await zero?.destroy();
    await database?.dispose();
    await discord?.close();
  });

  /** A mention in `channelId` whose claim was handed back at a shutdown (anyone may recover it). */
  async function handedBack(channelId: string): Promise<string> {
    const { id } = discord.postMessage({ authorId: member, channelId, content: 'hello?' });
    await claimMessage(database.db, { key: id, instanceId: RELEASED_CLAIM, channelId });
    return id;
  }

  async function recover(owns?: (channelId: string) => Promise<boolean>) {
    const answered: string[] = [];
    const recovered = await recoverUnanswered({
      db: database.db,
      client: zero,
      clock: systemClock,
      logger: silentLogger,
      delivery: new DeliveryPort({ clock: systemClock, logger: silentLogger }),
      instanceId: 'instance-zero',
      isAlive: () => Promise.resolve(true),
      canJudgePeers: () => Promise.resolve(true),
      answer: (message) => answered.push(message.id),
      ...(owns === undefined ? {} : { owns }),
    });
    const claims = await unsettledClaims(database.db, new Date(0));
    return { recovered, answered, claims };
  }

  it("leaves another shard's message to its owner when the channel lookup fails for a moment", async () => {
    const messageId = await handedBack(channels.shardOne);
    discord.faults.failRoute({ method: 'GET', route: '/channels/:channelId', status: 503 });
    const { answered, claims } = await recover((channelId) =>
      channelOnShards(zero, channelId, SHARDS),
    );
    expect(answered).toEqual([]);
    expect(claims.find((claim) => claim.messageId === messageId)?.instanceId).toBe(RELEASED_CLAIM);
  });

  it('hands back, never settles, a message whose guild this process does not hold', async () => {
    const messageId = await handedBack(channels.shardOne);
    const { answered, claims } = await recover();
    expect(answered).toEqual([]);
    expect(claims.find((claim) => claim.messageId === messageId)?.instanceId).toBe(RELEASED_CLAIM);
  });

  it('hands back its own message when fetching it fails for a moment, and answers it later', async () => {
    const heard = nextEvent(zero, 'messageCreate');
    const messageId = await handedBack(channels.shardZero);
    await heard;
    // As after a restart: the message is not in this process's cache, so it is asked for.
    const channel = zero.channels.cache.get(channels.shardZero);
    if (channel?.isTextBased()) channel.messages.cache.delete(messageId);
    discord.faults.failRoute({
      method: 'GET',
      route: '/channels/:channelId/messages/:messageId',
      status: 503,
    });
    const owns = (channelId: string) => channelOnShards(zero, channelId, SHARDS);
    const failed = await recover(owns);
    expect(failed.answered).toEqual([]);
    expect(failed.claims.find((claim) => claim.messageId === messageId)?.instanceId).toBe(
      RELEASED_CLAIM,
    );
    discord.faults.clear();
    expect((await recover(owns)).answered).toEqual([messageId]);
  });
});
