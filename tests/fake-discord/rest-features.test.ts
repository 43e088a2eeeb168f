/** The rest of the REST surface: uploads, history, reactions, threads, commands, and faults. */
import { REST } from '@discordjs/rest';
import { ChannelType, Routes } from 'discord-api-types/v10';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeDiscord, type FakeDiscord } from './fake-discord.ts';
import { raw } from './raw-api.ts';

let discord: FakeDiscord;
let guildId: string;
let channelId: string;
let alice: string;

beforeEach(async () => {
  // Reactions are limited to 1 per 250 ms; these tests are about their semantics, not that limit.
  discord = await startFakeDiscord({
    rateLimitTimeScale: 0.01,
    buckets: { reaction: { limit: 20, windowMs: 250 } },
  });
  guildId = discord.createGuild().id;
  channelId = discord.createChannel({ guildId, name: 'general' }).id;
  alice = discord.createUser({ username: 'alice' }).id;
  discord.addMember({ guildId, userId: alice });
});

afterEach(async () => {
  await discord.close();
});

/** discord.js's own REST client, with its retries and rate-limit queue. */
function restClient(): REST {
  return new REST({ api: discord.apiUrl, retries: 3, timeout: 5_000 }).setToken(discord.token);
}

describe('messages', () => {
  it('takes multipart uploads and serves the files from its CDN stand-in', async () => {
    const form = new FormData();
    form.append(
      'payload_json',
      JSON.stringify({
        content: 'report',
        attachments: [{ id: 0, filename: 'report.md', description: 'the report' }],
      }),
    );
    form.append('files[0]', new Blob(['# Report\n'], { type: 'text/markdown' }), 'ignored-name.md');
    const created = await raw(discord, 'POST', `/channels/${channelId}/messages`, { form });
    expect(created.status).toBe(200);
    const attachment = (
      created.body as {
        attachments: { url: string; filename: string; size: number; description: string }[];
      }
    ).attachments[0];
    expect(attachment).toMatchObject({ filename: 'report.md', size: 9, description: 'the report' });
    const download = await fetch(attachment?.url ?? '');
    expect(await download.text()).toBe('# Report\n');
    expect(discord.requests({ method: 'POST' }).at(-1)?.files).toEqual([
      { fieldName: 'files[0]', filename: 'ignored-name.md', contentType: 'text/markdown', size: 9 },
    ]);
  });

  it('lists history newest first with before, after and limit, and hides ephemeral messages', async () => {
    const ids = ['one', 'two', 'three', 'four'].map(
      (content) => discord.postMessage({ authorId: alice, channelId, content }).id,
    );
    const list = async (query: string) =>
      (
        (await raw(discord, 'GET', `/channels/${channelId}/messages${query}`)).body as {
          content: string;
        }[]
      ).map((message) => message.content);
    expect(await list('')).toEqual(['four', 'three', 'two', 'one']);
    expect(await list('?limit=2')).toEqual(['four', 'three']);
    expect(await list(`?before=${ids[2] ?? ''}&limit=5`)).toEqual(['two', 'one']);
    expect(await list(`?after=${ids[0] ?? ''}&limit=2`)).toEqual(['three', 'two']);
    expect((await raw(discord, 'GET', `/channels/${channelId}/messages?limit=101`)).status).toBe(
      400,
    );
    const one = await raw(discord, 'GET', `/channels/${channelId}/messages/${ids[1] ?? ''}`);
    expect(one.body).toMatchObject({ content: 'two', author: { id: alice } });
  });

  it('adds, lists and removes reactions, unicode and custom', async () => {
    const message = discord.postMessage({ authorId: alice, channelId, content: 'react to me' });
    const emoji = discord.build.addEmoji({ guildId, name: 'blob' });
    const base = `/channels/${channelId}/messages/${message.id}/reactions`;
    expect((await raw(discord, 'PUT', `${base}/${encodeURIComponent('👍')}/@me`)).status).toBe(204);
    expect(
      (await raw(discord, 'PUT', `${base}/${encodeURIComponent(`blob:${emoji.id}`)}/@me`)).status,
    ).toBe(204);
    expect(
      (await raw(discord, 'PUT', `${base}/${encodeURIComponent('nope:123456789012345678')}/@me`))
        .body,
    ).toMatchObject({ code: 10014 });
    discord.members.react({ userId: alice, messageId: message.id, emoji: '👍' });
    const users = (await raw(discord, 'GET', `${base}/${encodeURIComponent('👍')}`)).body as {
      id: string;
    }[];
    expect(users.map((user) => user.id)).toEqual([discord.botUserId, alice]);
    expect(
      discord
        .message(message.id)
        ?.reactions?.map((reaction) => [reaction.emoji.name, reaction.count, reaction.me]),
    ).toEqual([
      ['👍', 2, true],
      ['blob', 1, true],
    ]);
    expect((await raw(discord, 'DELETE', `${base}/${encodeURIComponent('👍')}/@me`)).status).toBe(
      204,
    );
    expect(discord.message(message.id, alice)?.reactions?.[0]).toMatchObject({
      count: 1,
      me: true,
    });
  });
});

describe('threads and forums', () => {
  it('starts a thread from a message (same id) and a forum post with its first message', async () => {
    const starter = discord.postMessage({ authorId: alice, channelId, content: 'let us discuss' });
    const thread = await raw(
      discord,
      'POST',
      `/channels/${channelId}/messages/${starter.id}/threads`,
      { body: { name: 'Discussion' } },
    );
    expect(thread).toMatchObject({
      status: 201,
      body: { id: starter.id, type: ChannelType.PublicThread, parent_id: channelId },
    });
    const forumId = discord.createChannel({ guildId, name: 'help', kind: 'forum' }).id;
    expect(
      (await raw(discord, 'POST', `/channels/${forumId}/messages`, { body: { content: 'x' } }))
        .body,
    ).toMatchObject({ code: 50008 });
    const post = await raw(discord, 'POST', `/channels/${forumId}/threads`, {
      body: { name: 'How do I…', message: { content: 'question body' } },
    });
    expect(post).toMatchObject({
      status: 201,
      body: { parent_id: forumId, message: { content: 'question body' } },
    });
    const postId = (post.body as { id: string }).id;
    expect(discord.readChannel(postId, { as: alice }).map((message) => message.content)).toEqual([
      'question body',
    ]);
  });
});

describe('application commands', () => {
  it('overwrites in bulk, keeps ids of unchanged names, bumps versions on change, and validates', async () => {
    const path = `/applications/${discord.applicationId}/guilds/${guildId}/commands`;
    const ask = {
      name: 'ask',
      description: 'Ask',
      name_localizations: { ja: 'しつもん' },
      description_localizations: { ja: '質問する' },
    };
    const first = (
      await raw(discord, 'PUT', path, { body: [ask, { name: 'reset', description: 'Reset' }] })
    ).body as { id: string; version: string }[];
    const second = (
      await raw(discord, 'PUT', path, { body: [ask, { name: 'reset', description: 'Start over' }] })
    ).body as { id: string; version: string }[];
    expect(second.map((command) => command.id)).toEqual(first.map((command) => command.id));
    expect(second[0]?.version).toBe(first[0]?.version);
    expect(second[1]?.version).not.toBe(first[1]?.version);
    const invalid = await raw(discord, 'PUT', path, {
      body: [
        { name: 'Bad Name', description: '' },
        { ...ask, name_localizations: { xx: 'x' } },
      ],
    });
    expect(invalid).toMatchObject({
      status: 400,
      body: {
        code: 50035,
        errors: {
          0: { name: { _errors: [{ code: 'APPLICATION_COMMAND_INVALID_NAME' }] }, description: {} },
          1: { name_localizations: { xx: {} } },
        },
      },
    });
    expect(discord.commands(guildId)).toHaveLength(2);
    expect(
      (
        (await raw(discord, 'GET', `/applications/${discord.applicationId}/commands`))
          .body as unknown[]
      ).length,
    ).toBe(0);
  });
});

describe('fault injection', () => {
  it('answers a route with 5xx a given number of times; discord.js retries through it', async () => {
    discord.faults.failRoute({ method: 'GET', route: '/users/@me', status: 503, times: 2 });
    const me = (await restClient().get(Routes.user('@me'))) as { id: string };
    expect(me.id).toBe(discord.botUserId);
    expect(
      discord.requests({ route: '/users/@me' }).map((entry) => [entry.status, entry.fault]),
    ).toEqual([
      [503, 'server-error'],
      [503, 'server-error'],
      [200, null],
    ]);
  });

  it('answers a route with 403 Missing Permissions a given number of times', async () => {
    discord.faults.forbidRoute({
      method: 'POST',
      route: '/channels/:channelId/messages',
      times: 1,
    });
    const path = `/channels/${channelId}/messages`;
    const refused = await raw(discord, 'POST', path, { body: { content: 'no' } });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ message: 'Missing Permissions', code: 50013 });
    expect((await raw(discord, 'POST', path, { body: { content: 'yes' } })).status).toBe(200);
    expect(
      discord.requests({ route: '/channels/:channelId/messages' }).map((entry) => entry.fault),
    ).toEqual(['refusal', null]);
  });

  it('storms a route with 429s of any scope; discord.js waits retry_after each time', async () => {
    discord.faults.rateLimitStorm({
      route: '/channels/:channelId/messages',
      retryAfterMs: 30,
      scope: 'shared',
      times: 3,
    });
    await restClient().post(Routes.channelMessages(channelId), {
      body: { content: 'eventually', allowed_mentions: { parse: [] } },
    });
    const log = discord.requests({ method: 'POST' });
    expect(log.map((entry) => entry.status)).toEqual([429, 429, 429, 200]);
    expect(log[0]).toMatchObject({
      responseHeaders: { 'x-ratelimit-scope': 'shared', 'retry-after': '0.030' },
      responseBody: {
        message: 'The resource is being rate limited.',
        retry_after: 0.03,
        global: false,
      },
    });
    discord.faults.rateLimitStorm({
      route: '/users/@me',
      retryAfterMs: 20,
      scope: 'global',
      times: 1,
    });
    expect((await raw(discord, 'GET', '/users/@me')).headers).toMatchObject({
      'x-ratelimit-global': 'true',
      'x-ratelimit-scope': 'global',
    });
  });

  it('refuses a route with 403 and Missing Access or Missing Permissions', async () => {
    discord.faults.refuseRoute({
      method: 'POST',
      route: '/channels/:channelId/messages',
      times: 1,
    });
    const refused = await raw(discord, 'POST', `/channels/${channelId}/messages`, {
      body: { content: 'no', allowed_mentions: { parse: [] } },
    });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 50001 });
    expect(discord.requests({ route: '/channels/:channelId/messages' })[0]?.fault).toBe('refusal');
  });

  it('answers a repeated create with enforce_nonce with the message it already made', async () => {
    const body = {
      content: 'once',
      nonce: 'n-1',
      enforce_nonce: true,
      allowed_mentions: { parse: [] },
    };
    const first = await raw(discord, 'POST', `/channels/${channelId}/messages`, { body });
    const again = await raw(discord, 'POST', `/channels/${channelId}/messages`, { body });
    const unenforced = await raw(discord, 'POST', `/channels/${channelId}/messages`, {
      body: { ...body, enforce_nonce: false },
    });
    expect((again.body as { id: string }).id).toBe((first.body as { id: string }).id);
    expect((unenforced.body as { id: string }).id).not.toBe((first.body as { id: string }).id);
    expect(discord.readChannel(channelId).map((message) => message.content)).toEqual([
      'once',
      'once',
    ]);
  });

  it('slows a route down and records the delay', async () => {
    discord.faults.slowRoute({ route: /\/typing$/, delayMs: 40, times: 1 });
    expect((await raw(discord, 'POST', `/channels/${channelId}/typing`)).status).toBe(204);
    const entry = discord.requests({ route: '/channels/:channelId/typing' })[0];
    expect(entry?.fault).toBe('delay');
    expect(entry?.durationMs).toBeGreaterThanOrEqual(40);
  });
});
