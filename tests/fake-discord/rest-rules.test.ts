/** Discord's rules over plain HTTP: exact statuses, JSON error codes and rate-limit headers. */
import { PermissionFlagsBits as Permission } from 'discord-api-types/v10';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeDiscord, type FakeDiscord } from './fake-discord.ts';
import { raw } from './raw-api.ts';

let discord: FakeDiscord;
let guildId: string;
let botRoleId: string;
let channelId: string;
let alice: string;

beforeEach(async () => {
  discord = await startFakeDiscord();
  const guild = discord.createGuild();
  guildId = guild.id;
  botRoleId = [...guild.roles.values()].find((role) => role.managedByBotId !== null)?.id ?? '';
  channelId = discord.createChannel({ guildId, name: 'general' }).id;
  alice = discord.createUser({ username: 'alice' }).id;
  discord.addMember({ guildId, userId: alice });
});

afterEach(async () => {
  await discord.close();
});

const send = (content: unknown, extra: Record<string, unknown> = {}) =>
  raw(discord, 'POST', `/channels/${channelId}/messages`, {
    body: { content, allowed_mentions: { parse: [] }, ...extra },
  });

describe('authentication and routing', () => {
  it('answers 401 without the bot token, 404 for unknown routes and 405 for a wrong method', async () => {
    expect(await raw(discord, 'GET', '/users/@me', { token: null })).toMatchObject({
      status: 401,
      body: { message: '401: Unauthorized', code: 0 },
    });
    expect((await raw(discord, 'GET', '/users/@me', { token: 'wrong' })).status).toBe(401);
    expect(await raw(discord, 'GET', '/nowhere')).toMatchObject({
      status: 404,
      body: { message: '404: Not Found', code: 0 },
    });
    expect((await raw(discord, 'PUT', `/channels/${channelId}/messages`)).status).toBe(405);
    expect(
      discord.requests({ route: '/users/@me' })[0]?.requestHeaders.authorization,
    ).toBeUndefined();
    expect(discord.requests({ route: '/users/@me' })[1]?.requestHeaders.authorization).toBe(
      'Bot [redacted]',
    );
  });

  it('serves the gateway URL and the bot identity with snowflakes as strings', async () => {
    const gateway = await raw(discord, 'GET', '/gateway/bot');
    expect(gateway.body).toMatchObject({
      url: expect.stringMatching(/^ws:\/\/127\.0\.0\.1:\d+\/gateway$/) as string,
      shards: 1,
    });
    const me = await raw(discord, 'GET', '/users/@me');
    expect(me.body).toMatchObject({ id: discord.botUserId, bot: true, discriminator: '0' });
    expect(discord.botUserId).toMatch(/^\d{18,19}$/);
  });
});

describe('permissions', () => {
  it('answers 403/50013 when the bot lacks Send Messages, and 50001 when it cannot see the channel', async () => {
    discord.setOverwrite({
      channelId,
      targetId: botRoleId,
      type: 'role',
      deny: Permission.SendMessages,
    });
    expect(await send('hi')).toMatchObject({
      status: 403,
      body: { code: 50013, message: 'Missing Permissions' },
    });
    discord.setOverwrite({
      channelId,
      targetId: botRoleId,
      type: 'role',
      deny: Permission.ViewChannel,
    });
    expect(await send('hi')).toMatchObject({
      status: 403,
      body: { code: 50001, message: 'Missing Access' },
    });
  });

  it('honours an allow overwrite for the bot over an @everyone deny', async () => {
    discord.setOverwrite({
      channelId,
      targetId: guildId,
      type: 'role',
      deny: Permission.SendMessages | Permission.ViewChannel,
    });
    discord.setOverwrite({
      channelId,
      targetId: discord.botUserId,
      type: 'member',
      allow: Permission.SendMessages | Permission.ViewChannel,
    });
    expect((await send('allowed')).status).toBe(200);
  });

  it('needs Embed Links for embeds and Read Message History for replies', async () => {
    const question = discord.postMessage({ authorId: alice, channelId, content: 'question' });
    discord.build.setRolePermissions({ guildId, roleId: guildId, permissions: 0n });
    discord.build.setRolePermissions({
      guildId,
      roleId: botRoleId,
      permissions: Permission.ViewChannel | Permission.SendMessages,
    });
    expect((await send('plain')).status).toBe(200);
    expect((await send('', { embeds: [{ description: 'x' }] })).body).toMatchObject({
      code: 50013,
    });
    expect(
      (await send('re', { message_reference: { message_id: question.id } })).body,
    ).toMatchObject({ code: 50013 });
  });
});

describe('message rules', () => {
  it('rejects over-length content and embeds with 50035 and the nested errors', async () => {
    const long = await send('x'.repeat(2001));
    expect(long).toMatchObject({
      status: 400,
      body: {
        code: 50035,
        message: 'Invalid Form Body',
        errors: { content: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH' }] } },
      },
    });
    const embeds = await send('', { embeds: [{ description: 'd'.repeat(4097) }] });
    expect(embeds.body).toMatchObject({
      errors: { embeds: { 0: { description: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH' }] } } } },
    });
    expect(await send('   ')).toMatchObject({ status: 400, body: { code: 50006 } });
    expect(discord.readChannel(channelId)).toEqual([]);
  });

  it('answers 10008 for an edit or delete of a deleted message, and 50005 for another user’s message', async () => {
    const created = (await send('soon gone')).body as { id: string };
    expect(
      (await raw(discord, 'DELETE', `/channels/${channelId}/messages/${created.id}`)).status,
    ).toBe(204);
    const edit = await raw(discord, 'PATCH', `/channels/${channelId}/messages/${created.id}`, {
      body: { content: 'x' },
    });
    expect(edit).toMatchObject({ status: 404, body: { code: 10008, message: 'Unknown Message' } });
    expect(
      (await raw(discord, 'DELETE', `/channels/${channelId}/messages/${created.id}`)).body,
    ).toMatchObject({ code: 10008 });
    const theirs = discord.postMessage({ authorId: alice, channelId, content: 'mine' });
    expect(
      (
        await raw(discord, 'PATCH', `/channels/${channelId}/messages/${theirs.id}`, {
          body: { content: 'x' },
        })
      ).body,
    ).toMatchObject({ code: 50005 });
  });

  it('refuses a reply to a message that does not exist unless fail_if_not_exists is false', async () => {
    const reference = { message_id: '123456789012345678' };
    expect((await send('re', { message_reference: reference })).body).toMatchObject({
      code: 50035,
      errors: { message_reference: { _errors: [{ code: 'REPLIES_UNKNOWN_MESSAGE' }] } },
    });
    expect(
      (await send('re', { message_reference: { ...reference, fail_if_not_exists: false } })).status,
    ).toBe(200);
  });

  it('limits edits of messages older than an hour per channel with 429 and code 30046', async () => {
    await discord.close();
    discord = await startFakeDiscord({
      oldMessageEdits: { ageMs: 3_600_000, limit: 2, windowMs: 60_000 },
      buckets: { messageWrite: { limit: 50, windowMs: 5_000 } },
    });
    guildId = discord.createGuild().id;
    channelId = discord.createChannel({ guildId, name: 'old' }).id;
    const old = (await send('old news')).body as { id: string };
    const fresh = (await send('new news')).body as { id: string };
    discord.backdateMessage(old.id, 2 * 3_600_000);
    const edit = (id: string) =>
      raw(discord, 'PATCH', `/channels/${channelId}/messages/${id}`, {
        body: { content: 'edited', allowed_mentions: { parse: [] } },
      });
    expect((await edit(old.id)).status).toBe(200);
    expect((await edit(old.id)).status).toBe(200);
    const refused = await edit(old.id);
    expect(refused).toMatchObject({
      status: 429,
      body: { code: 30046, global: false, retry_after: expect.any(Number) as number },
    });
    expect(refused.headers['retry-after']).toBe('60');
    expect((await edit(fresh.id)).status).toBe(200);
  });
});

describe('rate limits', () => {
  it('sends the bucket headers on every write and 429s the sixth write in 5 s, edits included', async () => {
    const first = await send('1');
    expect(first.headers).toMatchObject({
      'x-ratelimit-limit': '5',
      'x-ratelimit-remaining': '4',
      'x-ratelimit-reset-after': '5.000',
    });
    const id = (first.body as { id: string }).id;
    for (const content of ['2', '3', '4']) expect((await send(content)).status).toBe(200);
    const edit = await raw(discord, 'PATCH', `/channels/${channelId}/messages/${id}`, {
      body: { content: 'edited', allowed_mentions: { parse: [] } },
    });
    expect(edit.headers['x-ratelimit-remaining']).toBe('0');
    expect(edit.headers['x-ratelimit-bucket']).toBe(first.headers['x-ratelimit-bucket']);
    const limited = await send('6');
    expect(limited).toMatchObject({
      status: 429,
      body: { message: 'You are being rate limited.', global: false },
    });
    expect(limited.headers).toMatchObject({
      'x-ratelimit-scope': 'user',
      'retry-after': '5',
      'x-ratelimit-remaining': '0',
    });
    const other = discord.createChannel({ guildId, name: 'other' }).id;
    const elsewhere = await raw(discord, 'POST', `/channels/${other}/messages`, {
      body: { content: 'fine' },
    });
    expect(elsewhere.status).toBe(200);
  });

  it('limits the bot to 50 requests per second globally, interaction routes excepted', async () => {
    const responses = await Promise.all(
      Array.from({ length: 51 }, () => raw(discord, 'GET', '/users/@me')),
    );
    const limited = responses.filter((response) => response.status === 429);
    expect(limited).toHaveLength(1);
    expect(limited[0]).toMatchObject({
      body: { global: true },
      headers: { 'x-ratelimit-global': 'true', 'x-ratelimit-scope': 'global' },
    });
    expect(discord.globalRateLimitHits()).toBe(1);
  });

  it('keeps interaction callbacks and webhooks outside an exhausted global limit', async () => {
    await Promise.all(Array.from({ length: 50 }, () => raw(discord, 'GET', '/users/@me')));
    expect((await raw(discord, 'GET', '/users/@me')).status).toBe(429);
    const callback = await raw(discord, 'POST', '/interactions/1/unknown-token/callback', {
      token: null,
      body: { type: 4, data: { content: 'hi' } },
    });
    const webhook = await raw(
      discord,
      'GET',
      `/webhooks/${discord.applicationId}/unknown-token/messages/@original`,
      { token: null },
    );
    expect([callback.status, webhook.status]).not.toContain(429);
    expect(discord.globalRateLimitHits()).toBe(1);
  });
});

describe('the global limit across connections', () => {
  it('shares one budget among every client of the token and counts each global 429', async () => {
    const shared = await startFakeDiscord({ globalRequestsPerSecond: 10 });
    try {
      const viaFetch = Array.from({ length: 6 }, () => raw(shared, 'GET', '/users/@me'));
      const viaAgentless = Array.from({ length: 6 }, () =>
        fetch(`${shared.apiUrl}/v10/users/@me`, {
          headers: { authorization: `Bot ${shared.token}`, connection: 'close' },
        }).then((response) => ({ status: response.status })),
      );
      const statuses = (await Promise.all([...viaFetch, ...viaAgentless])).map(
        (response) => response.status,
      );
      expect(statuses.filter((status) => status === 429)).toHaveLength(2);
      expect(shared.globalRateLimitHits()).toBe(2);
    } finally {
      await shared.close();
    }
  });

  it('answers no global 429 when the global limit is switched off', async () => {
    const unlimited = await startFakeDiscord({ globalLimit: false, globalRequestsPerSecond: 1 });
    try {
      const statuses = await Promise.all(
        Array.from({ length: 5 }, () => raw(unlimited, 'GET', '/users/@me')),
      );
      expect(statuses.map((response) => response.status)).toEqual([200, 200, 200, 200, 200]);
      expect(unlimited.globalRateLimitHits()).toBe(0);
    } finally {
      await unlimited.close();
    }
  });
});
