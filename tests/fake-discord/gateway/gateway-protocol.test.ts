/** The gateway protocol over a bare WebSocket: opcodes, close codes, READY, intents, RESUME. */
import { GatewayIntentBits as Intent } from 'discord-api-types/v10';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeDiscord, type FakeDiscord } from '../fake-discord.ts';
import { RawGateway, type Payload } from './raw-gateway.ts';

let discord: FakeDiscord;
let guildId: string;
let channelId: string;
let alice: string;
const open: RawGateway[] = [];

beforeEach(async () => {
  discord = await startFakeDiscord({ heartbeatIntervalMs: 45_000 });
  guildId = discord.createGuild({ name: 'Guild' }).id;
  channelId = discord.createChannel({ guildId, name: 'general' }).id;
  alice = discord.createUser({ username: 'alice' }).id;
  discord.addMember({ guildId, userId: alice });
});

afterEach(async () => {
  for (const gateway of open.splice(0)) gateway.socket.terminate();
  await discord.close();
});

async function connect(path = '/gateway?v=10&encoding=json'): Promise<RawGateway> {
  const gateway = new RawGateway(`${discord.origin.replace('http', 'ws')}${path}`);
  open.push(gateway);
  await new Promise((resolve) => gateway.socket.once('open', resolve));
  return gateway;
}

const dispatch = (type: string) => (payload: Payload) => payload.op === 0 && payload.t === type;

describe('gateway protocol', () => {
  it('says HELLO, acknowledges heartbeats, and answers IDENTIFY with READY then GUILD_CREATE', async () => {
    const gateway = await connect();
    expect((await gateway.next((payload) => payload.op === 10)).d).toEqual({
      heartbeat_interval: 45_000,
    });
    gateway.send({ op: 1, d: null });
    await gateway.next((payload) => payload.op === 11);
    gateway.identify(discord, Intent.Guilds | Intent.GuildMessages | Intent.MessageContent);
    const ready = await gateway.next(dispatch('READY'));
    expect(ready.s).toBe(1);
    expect(ready.d).toMatchObject({
      v: 10,
      user: { id: discord.botUserId, bot: true },
      guilds: [{ id: guildId, unavailable: true }],
      session_id: expect.stringMatching(/^[0-9a-f]{32}$/) as string,
      resume_gateway_url: expect.stringMatching(/\/resume$/) as string,
      application: { id: discord.applicationId, flags: 1 << 19 },
    });
    const guild = await gateway.next(dispatch('GUILD_CREATE'));
    expect(guild.s).toBe(2);
    const data = guild.d as {
      id: string;
      channels: { id: string }[];
      roles: { permissions: unknown }[];
      members: { user: { id: string } }[];
    };
    expect(data.id).toBe(guildId);
    expect(data.channels.map((channel) => channel.id)).toEqual([channelId]);
    expect(data.roles.every((role) => typeof role.permissions === 'string')).toBe(true);
    // Without GUILD_MEMBERS the only member sent is the bot itself.
    expect(data.members.map((member) => member.user.id)).toEqual([discord.botUserId]);
  });

  it('closes with Discord’s codes: 4004 bad token, 4014 disallowed intent, 4003 before identify, 4001 unknown op, 4005 twice, 4012 bad version', async () => {
    const badToken = await connect();
    badToken.identify(discord, Intent.Guilds, 'nope');
    expect(await badToken.closed).toBe(4004);
    const members = await connect();
    members.identify(discord, Intent.Guilds | Intent.GuildMembers);
    expect(await members.closed).toBe(4014);
    const early = await connect();
    await early.next((payload) => payload.op === 10);
    early.send({ op: 8, d: { guild_id: guildId } });
    expect(await early.closed).toBe(4003);
    const unknown = await connect();
    unknown.send({ op: 42 });
    expect(await unknown.closed).toBe(4001);
    const twice = await connect();
    twice.identify(discord, Intent.Guilds);
    await twice.next(dispatch('READY'));
    twice.identify(discord, Intent.Guilds);
    expect(await twice.closed).toBe(4005);
    expect(await (await connect('/gateway?v=9&encoding=json')).closed).toBe(4012);
  });

  it('numbers dispatches per session and strips content without MESSAGE_CONTENT unless the bot is mentioned', async () => {
    const gateway = await connect();
    gateway.identify(discord, Intent.Guilds | Intent.GuildMessages | Intent.DirectMessages);
    await gateway.next(dispatch('GUILD_CREATE'));
    discord.postMessage({ authorId: alice, channelId, content: 'secret' });
    discord.postMessage({ authorId: alice, channelId, content: `hey <@${discord.botUserId}>` });
    discord.postMessage({
      authorId: alice,
      channelId: discord.openDirectMessage(alice).id,
      content: 'in a DM',
    });
    const messages = await Promise.all(
      [3, 4, 5].map((sequence) => gateway.next((payload) => payload.s === sequence)),
    );
    expect(
      messages.map((payload) => [payload.t, (payload.d as { content: string }).content]),
    ).toEqual([
      ['MESSAGE_CREATE', ''],
      ['MESSAGE_CREATE', `hey <@${discord.botUserId}>`],
      ['MESSAGE_CREATE', 'in a DM'],
    ]);
    expect(messages[0]?.d).toMatchObject({
      guild_id: guildId,
      channel_type: 0,
      member: { roles: [] },
    });
  });

  it('replays what a session missed on RESUME, and refuses unknown or rejected sessions with op 9', async () => {
    const first = await connect();
    first.identify(discord, Intent.Guilds | Intent.GuildMessages | Intent.MessageContent);
    const ready = (await first.next(dispatch('READY'))).d as { session_id: string };
    await first.next(dispatch('GUILD_CREATE'));
    discord.gateway.closeConnections(4000);
    expect(await first.closed).toBe(4000);
    discord.postMessage({ authorId: alice, channelId, content: 'while you were away' });

    const resumed = await connect('/resume?v=10&encoding=json');
    resumed.send({ op: 6, d: { token: discord.token, session_id: ready.session_id, seq: 2 } });
    const missed = await resumed.next(dispatch('MESSAGE_CREATE'));
    expect(missed).toMatchObject({ s: 3, d: { content: 'while you were away' } });
    expect((await resumed.next(dispatch('RESUMED'))).s).toBe(4);

    const stranger = await connect('/resume?v=10&encoding=json');
    stranger.send({ op: 6, d: { token: discord.token, session_id: 'f'.repeat(32), seq: 1 } });
    expect((await stranger.next((payload) => payload.op === 9)).d).toBe(false);

    discord.gateway.rejectNextResume();
    resumed.socket.close(4000);
    await resumed.closed;
    const rejected = await connect('/resume?v=10&encoding=json');
    rejected.send({ op: 6, d: { token: discord.token, session_id: ready.session_id, seq: 4 } });
    expect((await rejected.next((payload) => payload.op === 9)).d).toBe(false);
  });

  it('invalidates a session the client closes with 1000, as Discord does', async () => {
    const gateway = await connect();
    gateway.identify(discord, Intent.Guilds);
    const ready = (await gateway.next(dispatch('READY'))).d as { session_id: string };
    gateway.socket.close(1000);
    await gateway.closed;
    const again = await connect('/resume?v=10&encoding=json');
    again.send({ op: 6, d: { token: discord.token, session_id: ready.session_id, seq: 1 } });
    expect((await again.next((payload) => payload.op === 9)).d).toBe(false);
  });

  it('answers op 8 with a GUILD_MEMBERS_CHUNK', async () => {
    await discord.close();
    discord = await startFakeDiscord({ privilegedIntents: ['MessageContent', 'GuildMembers'] });
    guildId = discord.createGuild().id;
    alice = discord.createUser({ username: 'alice' }).id;
    discord.addMember({ guildId, userId: alice });
    const gateway = await connect();
    gateway.identify(discord, Intent.Guilds | Intent.GuildMembers);
    await gateway.next(dispatch('GUILD_CREATE'));
    gateway.send({
      op: 8,
      d: { guild_id: guildId, user_ids: [alice, '123456789012345678'], nonce: 'n1' },
    });
    const chunk = await gateway.next(dispatch('GUILD_MEMBERS_CHUNK'));
    expect(chunk.d).toMatchObject({
      guild_id: guildId,
      nonce: 'n1',
      not_found: ['123456789012345678'],
      members: [{ user: { id: alice } }],
    });
  });
});
