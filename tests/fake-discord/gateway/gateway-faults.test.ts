/** Gateway faults as the unmodified discord.js client lives through them. */
import type { Client } from 'discord.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectClient, nextEvent } from '../discord-js-harness.ts';
import { startFakeDiscord, type FakeDiscord } from '../fake-discord.ts';

let discord: FakeDiscord;
let client: Client<true>;
let channelId: string;
let alice: string;

/**
 * discord.js spaces IDENTIFYs 5 s apart on its own (a courtesy to Discord, not part of the
 * protocol); tests that force a fresh IDENTIFY skip that wait.
 */
const NO_IDENTIFY_WAIT = {
  ws: {
    buildIdentifyThrottler: () => Promise.resolve({ waitForIdentify: () => Promise.resolve() }),
  },
};

beforeEach(async () => {
  discord = await startFakeDiscord({ heartbeatIntervalMs: 250 });
  const guildId = discord.createGuild().id;
  channelId = discord.createChannel({ guildId, name: 'general' }).id;
  alice = discord.createUser({ username: 'alice' }).id;
  discord.addMember({ guildId, userId: alice });
  client = await connectClient(discord, NO_IDENTIFY_WAIT);
});

afterEach(async () => {
  await client.destroy();
  await discord.close();
});

function messageArrives(content: string): Promise<unknown> {
  return nextEvent(client, 'messageCreate', (message) => message.content === content);
}

describe('gateway faults with discord.js', () => {
  it('resumes after close code 4000 and receives what was sent while it was away', async () => {
    const [session] = discord.gateway.sessions();
    const resumed = discord.waits.gateway('resumed');
    discord.gateway.closeConnections(4000);
    const arrives = messageArrives('missed me?');
    discord.postMessage({ authorId: alice, channelId, content: 'missed me?' });
    expect(await resumed).toMatchObject({ sessionId: session?.id, replayed: 1 });
    await arrives;
  });

  it('reconnects and resumes on op 7 RECONNECT, on the resume_gateway_url', async () => {
    const connected = discord.waits.gateway('connected');
    const resumed = discord.waits.gateway('resumed');
    discord.gateway.sendReconnect();
    expect((await connected).path).toBe('/resume');
    await resumed;
    const arrives = messageArrives('still here');
    discord.postMessage({ authorId: alice, channelId, content: 'still here' });
    await arrives;
  });

  it('identifies afresh after INVALID_SESSION that cannot be resumed', async () => {
    const [before] = discord.gateway.sessions();
    const identified = discord.waits.gateway('identified');
    const ready = discord.waits.gateway('ready-sent');
    discord.gateway.invalidateSessions({ resumable: false });
    expect((await identified).sessionId).not.toBe(before?.id);
    await ready;
    const arrives = messageArrives('new session');
    discord.postMessage({ authorId: alice, channelId, content: 'new session' });
    await arrives;
  });

  it('treats a connection whose heartbeats are not acknowledged as a zombie and resumes', async () => {
    discord.gateway.acknowledgeHeartbeats(false);
    const closed = discord.waits.gateway('closed');
    const resumed = discord.waits.gateway('resumed');
    expect(await closed).toMatchObject({ by: 'client', code: 4200 });
    discord.gateway.acknowledgeHeartbeats(true);
    await resumed;
  });

  it('gives up on close code 4004 (authentication failed), as discord.js must', async () => {
    const disconnected = nextEvent(client, 'shardDisconnect');
    discord.gateway.closeConnections(4004);
    const [event] = await disconnected;
    expect(event.code).toBe(4004);
    expect(discord.gateway.sessions()).toEqual([]);
  });
});
