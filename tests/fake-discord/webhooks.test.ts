/**
 * Channel webhooks on the loopback Discord: managed with the bot's token, executed with the
 * webhook's, as discord.js and plain HTTP meet them — names, threads, forums, Unknown Webhook,
 * the per-webhook and per-channel buckets, and webhook_id on what the gateway dispatches.
 */
import { ChannelType, PermissionFlagsBits } from 'discord-api-types/v10';
import type { Client } from 'discord.js';
import { DiscordAPIError, WebhookClient } from 'discord.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectClient, nextEvent } from './discord-js-harness.ts';
import { DEFAULT_BOT_PERMISSIONS } from './rules/default-permissions.ts';
import type { FakeDiscordOptions } from './fake-discord-options.ts';
import { startFakeDiscord, type FakeDiscord } from './fake-discord.ts';
import { raw } from './raw-api.ts';

let discord: FakeDiscord;
let guildId: string;
let channelId: string;
let alice: string;

/** A loopback Discord with a guild whose bot may manage webhooks, a channel and a member. */
async function openWorld(options: FakeDiscordOptions): Promise<void> {
  discord = await startFakeDiscord(options);
  guildId = discord.createGuild({
    botPermissions: DEFAULT_BOT_PERMISSIONS | PermissionFlagsBits.ManageWebhooks,
  }).id;
  channelId = discord.createChannel({ guildId, name: 'stage' }).id;
  alice = discord.createUser({ username: 'alice' }).id;
  discord.addMember({ guildId, userId: alice });
}

beforeEach(() => openWorld({ rateLimitTimeScale: 0.01 }));

afterEach(async () => {
  await discord.close();
});

interface WebhookBody {
  id: string;
  token: string;
  channel_id: string;
  name: string;
  application_id: string | null;
}

async function createWebhook(name = 'Cast', channel = channelId): Promise<WebhookBody> {
  const created = await raw(discord, 'POST', `/channels/${channel}/webhooks`, { body: { name } });
  expect(created.status).toBe(200);
  return created.body as WebhookBody;
}

function execute(
  webhook: WebhookBody,
  body: Record<string, unknown>,
  query = '?wait=true',
): ReturnType<typeof raw> {
  return raw(discord, 'POST', `/webhooks/${webhook.id}/${webhook.token}${query}`, {
    body,
    token: null,
  });
}

describe('managing webhooks', () => {
  it('creates, lists and deletes a channel webhook with the bot token', async () => {
    const webhook = await createWebhook('Cast');
    expect(webhook).toMatchObject({
      channel_id: channelId,
      name: 'Cast',
      application_id: discord.applicationId,
    });
    const listed = await raw(discord, 'GET', `/channels/${channelId}/webhooks`);
    expect((listed.body as WebhookBody[]).map((item) => item.id)).toEqual([webhook.id]);
    expect((await raw(discord, 'DELETE', `/webhooks/${webhook.id}`)).status).toBe(204);
    expect(discord.webhooks(channelId)).toEqual([]);
    const again = await raw(discord, 'DELETE', `/webhooks/${webhook.id}`);
    expect(again).toMatchObject({ status: 404, body: { code: 10015, message: 'Unknown Webhook' } });
  });

  it('needs MANAGE_WEBHOOKS, refuses threads and names with "discord", and stops at 15', async () => {
    const bare = discord.createGuild().id;
    const other = discord.createChannel({ guildId: bare, name: 'general' }).id;
    const refused = await raw(discord, 'POST', `/channels/${other}/webhooks`, {
      body: { name: 'Cast' },
    });
    expect(refused).toMatchObject({ status: 403, body: { code: 50013 } });
    const thread = discord.createThread({ parentId: channelId, name: 'side', ownerId: alice }).id;
    const inThread = await raw(discord, 'POST', `/channels/${thread}/webhooks`, {
      body: { name: 'Cast' },
    });
    expect(inThread).toMatchObject({ status: 400, body: { code: 50024 } });
    const badName = await raw(discord, 'POST', `/channels/${channelId}/webhooks`, {
      body: { name: 'My Discord hook' },
    });
    expect(badName).toMatchObject({ status: 400, body: { code: 50035 } });
    for (let index = 0; index < 15; index += 1) await createWebhook(`Cast ${index}`);
    const sixteenth = await raw(discord, 'POST', `/channels/${channelId}/webhooks`, {
      body: { name: 'Cast 16' },
    });
    expect(sixteenth).toMatchObject({ status: 400, body: { code: 30007 } });
  });
});

describe('executing', () => {
  it('posts under the execute username and answers the message only with wait=true', async () => {
    const webhook = await createWebhook();
    const waited = await execute(webhook, {
      content: 'Hello, traveller.',
      username: 'Alice the Innkeeper',
      avatar_url: 'https://example.test/alice.png',
      allowed_mentions: { parse: [] },
    });
    expect(waited.status).toBe(200);
    expect(waited.body).toMatchObject({
      content: 'Hello, traveller.',
      webhook_id: webhook.id,
      author: { id: webhook.id, username: 'Alice the Innkeeper', bot: true },
      application_id: discord.applicationId,
    });
    const silent = await execute(webhook, { content: 'no wait' }, '');
    expect(silent.status).toBe(204);
    expect(discord.readChannel(channelId).map((message) => message.content)).toEqual([
      'Hello, traveller.',
      'no wait',
    ]);
  });

  it('refuses a wrong token (50027), an unknown webhook (10015) and a Discord-like username', async () => {
    const webhook = await createWebhook();
    const wrong = await execute({ ...webhook, token: 'nope' }, { content: 'x' });
    expect(wrong).toMatchObject({ status: 401, body: { code: 50027 } });
    discord.deleteWebhook(webhook.id);
    const gone = await execute(webhook, { content: 'x' });
    expect(gone).toMatchObject({ status: 404, body: { code: 10015, message: 'Unknown Webhook' } });
    const fresh = await createWebhook();
    const clyde = await execute(fresh, { content: 'x', username: 'clyde' });
    expect(clyde).toMatchObject({ status: 400, body: { code: 50035 } });
  });

  it('posts in a thread of its channel with thread_id and opens a forum post with thread_name', async () => {
    const webhook = await createWebhook();
    const thread = discord.createThread({ parentId: channelId, name: 'side', ownerId: alice }).id;
    const posted = await execute(
      webhook,
      { content: 'in the thread' },
      `?wait=true&thread_id=${thread}`,
    );
    expect(posted.body).toMatchObject({ channel_id: thread });
    const elsewhere = discord.createChannel({ guildId, name: 'other' }).id;
    const foreign = discord.createThread({ parentId: elsewhere, name: 'x', ownerId: alice }).id;
    const refused = await execute(webhook, { content: 'x' }, `?wait=true&thread_id=${foreign}`);
    expect(refused).toMatchObject({ status: 404, body: { code: 10003 } });

    const forum = discord.createChannel({ guildId, name: 'stories', kind: 'forum' }).id;
    const forumHook = await createWebhook('Cast', forum);
    const nameless = await execute(forumHook, { content: 'x' });
    expect(nameless).toMatchObject({ status: 400, body: { code: 220001 } });
    const post = await execute(forumHook, { content: 'Once upon a time', thread_name: 'A tale' });
    const threadId = (post.body as { channel_id: string }).channel_id;
    expect(threadId).not.toBe(forum);
    expect(discord.readChannel(threadId).map((message) => message.content)).toEqual([
      'Once upon a time',
    ]);
  });

  it('edits and deletes its own messages, also in a thread, and never another webhook’s', async () => {
    const webhook = await createWebhook();
    const other = await createWebhook('Other');
    const thread = discord.createThread({ parentId: channelId, name: 'side', ownerId: alice }).id;
    const posted = (await execute(webhook, { content: 'draft' }, `?wait=true&thread_id=${thread}`))
      .body as { id: string };
    const path = `/webhooks/${webhook.id}/${webhook.token}/messages/${posted.id}?thread_id=${thread}`;
    const edited = await raw(discord, 'PATCH', path, {
      body: { content: 'final', allowed_mentions: { parse: [] } },
      token: null,
    });
    expect(edited).toMatchObject({
      status: 200,
      body: { content: 'final', webhook_id: webhook.id },
    });
    const foreign = await raw(
      discord,
      'PATCH',
      `/webhooks/${other.id}/${other.token}/messages/${posted.id}?thread_id=${thread}`,
      { body: { content: 'hijack' }, token: null },
    );
    expect(foreign).toMatchObject({ status: 404, body: { code: 10008 } });
    expect((await raw(discord, 'DELETE', path, { token: null })).status).toBe(204);
    expect(discord.message(posted.id)).toBeUndefined();
  });

  it('posts an execute whose answer a failAfterWrite fault replaces with a 5xx', async () => {
    const webhook = await createWebhook();
    discord.faults.failAfterWrite({ route: '/webhooks/:webhookId/:token', status: 502, times: 1 });
    const lost = await execute(webhook, { content: 'posted anyway', username: 'Alice' });
    expect(lost.status).toBe(502);
    expect(discord.readChannel(channelId).map((message) => message.content)).toEqual([
      'posted anyway',
    ]);
    expect(discord.requests({ route: '/webhooks/:webhookId/:token' })[0]?.fault).toBe(
      'server-error-after-write',
    );
    expect((await execute(webhook, { content: 'answered' })).status).toBe(200);
  });

  it('lets a webhook ping @everyone unless allowed_mentions says otherwise', async () => {
    const webhook = await createWebhook();
    await execute(webhook, { content: '@everyone look', allowed_mentions: { parse: [] } });
    expect(discord.pings()).toEqual([]);
    await execute(webhook, { content: '@everyone look' });
    expect(discord.pings()).toMatchObject([{ everyone: true, allowedMentionsSent: false }]);
  });
});

describe('rate limits', () => {
  it('limits each webhook to 5 writes per 2 s, with its bucket in the headers', async () => {
    // Discord's own window: at the suite's 0.01 scale (20 ms) a busy machine let it pass between
    // two of the six writes.
    await discord.close();
    await openWorld({ rateLimitTimeScale: 1 });
    const webhook = await createWebhook();
    const statuses: number[] = [];
    let last: Record<string, string> = {};
    for (let index = 0; index < 6; index += 1) {
      const response = await execute(webhook, { content: `line ${index}` });
      statuses.push(response.status);
      last = response.headers;
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    expect(last).toMatchObject({ 'x-ratelimit-limit': '5', 'x-ratelimit-remaining': '0' });
    expect(last['retry-after']).toBeDefined();
  });

  it('shares a channel bucket among its webhooks and reports it when it is the tighter one', async () => {
    await discord.close();
    await openWorld({
      rateLimitTimeScale: 0.01,
      buckets: { webhookChannel: { limit: 3, windowMs: 60_000 } },
    });
    const first = await createWebhook('One');
    const second = await createWebhook('Two');
    expect((await execute(first, { content: 'a' })).status).toBe(200);
    const tighter = await execute(second, { content: 'b' });
    expect(tighter.headers).toMatchObject({
      'x-ratelimit-limit': '3',
      'x-ratelimit-remaining': '1',
    });
    expect((await execute(first, { content: 'c' })).status).toBe(200);
    const refused = await execute(second, { content: 'd' });
    expect(refused.status).toBe(429);
    expect(refused.headers).toMatchObject({
      'x-ratelimit-limit': '3',
      'x-ratelimit-scope': 'user',
    });
  });
});

describe('through discord.js', () => {
  let client: Client<true> | undefined;

  afterEach(async () => {
    await client?.destroy();
    client = undefined;
  });

  it('dispatches MESSAGE_CREATE with webhook_id, and WebhookClient meets Unknown Webhook', async () => {
    client = await connectClient(discord);
    const channel = await client.channels.fetch(channelId);
    if (channel?.type !== ChannelType.GuildText) throw new Error('expected a text channel');
    const webhook = await channel.createWebhook({ name: 'Cast' });
    const hook = new WebhookClient(
      { id: webhook.id, token: webhook.token ?? '' },
      { rest: { api: discord.apiUrl } },
    );
    try {
      const heard = nextEvent(
        client,
        'messageCreate',
        (message) => message.content === 'Greetings',
      );
      const sent = await hook.send({
        content: 'Greetings',
        username: 'Bob',
        allowedMentions: { parse: [] },
      });
      const [message] = await heard;
      expect(message.webhookId).toBe(webhook.id);
      expect(message.author.username).toBe('Bob');
      expect(message.member).toBeNull();
      const edited = await hook.editMessage(sent.id, {
        content: 'Greetings, all',
        allowedMentions: { parse: [] },
      });
      expect(edited.content).toBe('Greetings, all');
      await webhook.delete();
      const error = await hook.send({ content: 'again' }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(DiscordAPIError);
      expect((error as DiscordAPIError).code).toBe(10015);
    } finally {
      hook.destroy();
    }
  });
});
