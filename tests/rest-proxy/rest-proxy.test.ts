/**
 * The shared REST proxy (src/bot/rest-proxy-server.ts) in front of the loopback Discord, with
 * the global limit at Discord's real 50 requests per second.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startRestProxy, type RunningRestProxy } from '../../src/bot/rest/rest-proxy-server.ts';
import { systemClock } from '../../src/core/clock.ts';
import { silentLogger, type Logger } from '../../src/core/logger.ts';
import { startFakeDiscord, type FakeDiscord } from '../fake-discord/fake-discord.ts';

let discord: FakeDiscord;
let proxy: RunningRestProxy;
let channelId: string;

beforeEach(async () => {
  discord = await startFakeDiscord({ rateLimitTimeScale: 0.05, globalLimitTimeScale: 1 });
  const guild = discord.createGuild();
  channelId = discord.createChannel({ guildId: guild.id, name: 'general' }).id;
  proxy = await startRestProxy({
    upstreamUrl: discord.apiUrl,
    host: '127.0.0.1',
    port: 0,
    logger: silentLogger,
    clock: systemClock,
  });
});

afterEach(async () => {
  await proxy.close();
  await discord.close();
});

const call = async (
  base: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; headers: Headers; body: unknown }> => {
  const response = await fetch(`${base}/v10${path}`, {
    method,
    headers: {
      authorization: `Bot ${discord.token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: text === '' ? undefined : (JSON.parse(text) as unknown),
  };
};

describe('the REST proxy', () => {
  it('forwards a create with its body and the caller token, and passes the bucket headers back', async () => {
    const created = await call(proxy.apiUrl, 'POST', `/channels/${channelId}/messages`, {
      content: 'through the proxy',
      allowed_mentions: { parse: [] },
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ content: 'through the proxy', channel_id: channelId });
    expect(created.headers.get('x-ratelimit-limit')).toBe('5');
    expect(discord.readChannel(channelId).map((message) => message.content)).toEqual([
      'through the proxy',
    ]);
    expect((await call(proxy.apiUrl, 'GET', '/users/@me')).status).toBe(200);
    const anonymous = await fetch(`${proxy.apiUrl}/v10/users/@me`);
    expect(anonymous.status).toBe(401);
    const health = await fetch(proxy.apiUrl.replace(/\/api$/, '/healthz'));
    expect(health.status).toBe(200);
    expect(discord.requests({ route: '/healthz' })).toEqual([]);
  });

  it('forwards a multipart create with its file intact', async () => {
    const form = new FormData();
    form.append(
      'payload_json',
      JSON.stringify({ content: 'with a file', allowed_mentions: { parse: [] } }),
    );
    form.append('files[0]', new Blob(['hello file'], { type: 'text/plain' }), 'note.txt');
    const response = await fetch(`${proxy.apiUrl}/v10/channels/${channelId}/messages`, {
      method: 'POST',
      headers: { authorization: `Bot ${discord.token}` },
      body: form,
    });
    expect(response.status).toBe(200);
    const [entry] = discord.requests({ method: 'POST', route: '/channels/:channelId/messages' });
    expect(entry?.files).toEqual([
      expect.objectContaining({ filename: 'note.txt', size: 'hello file'.length }),
    ]);
    expect(entry?.body).toMatchObject({ content: 'with a file' });
  });

  it('keeps a burst of 120 requests inside the global limit that the same burst sent direct exceeds', async () => {
    const proxied = await Promise.all(
      Array.from({ length: 120 }, () => call(proxy.apiUrl, 'GET', '/users/@me')),
    );
    expect(proxied.map((response) => response.status)).toEqual(Array(120).fill(200));
    expect(discord.globalRateLimitHits()).toBe(0);

    const direct = await Promise.all(
      Array.from({ length: 120 }, () => call(discord.apiUrl, 'GET', '/users/@me')),
    );
    expect(direct.filter((response) => response.status === 429).length).toBeGreaterThan(0);
    expect(discord.globalRateLimitHits()).toBeGreaterThan(0);
  });

  it('re-sends the body when Discord answers 429, so the retried create is whole', async () => {
    discord.faults.rateLimitStorm({
      method: 'POST',
      route: '/channels/:channelId/messages',
      retryAfterMs: 50,
      scope: 'shared',
      times: 1,
    });
    const created = await call(proxy.apiUrl, 'POST', `/channels/${channelId}/messages`, {
      content: 'after a 429',
      allowed_mentions: { parse: [] },
    });
    expect(created.status).toBe(200);
    const attempts = discord.requests({ method: 'POST', route: '/channels/:channelId/messages' });
    expect(attempts.map((attempt) => attempt.status)).toEqual([429, 200]);
    expect(attempts.map((attempt) => attempt.body)).toEqual([
      expect.objectContaining({ content: 'after a 429' }),
      expect.objectContaining({ content: 'after a 429' }),
    ]);
  });

  it('drops a queued request whose caller gave up instead of sending it late', async () => {
    let sawWait: () => void = () => undefined;
    const waiting = new Promise<void>((resolve) => (sawWait = resolve));
    const logger: Logger = {
      ...silentLogger,
      debug: (...parts: unknown[]) => {
        if (parts.includes('waiting')) sawWait();
      },
      child: () => logger,
    };
    const queueing = await startRestProxy({
      upstreamUrl: discord.apiUrl,
      host: '127.0.0.1',
      port: 0,
      logger,
      clock: systemClock,
    });
    const post = (content: string, signal?: AbortSignal) =>
      fetch(`${queueing.apiUrl}/v10/channels/${channelId}/messages`, {
        method: 'POST',
        headers: { authorization: `Bot ${discord.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ content, allowed_mentions: { parse: [] } }),
        ...(signal === undefined ? {} : { signal }),
      });
    try {
      // Five writes fill the channel's bucket (5 per 250 ms here); the sixth waits in the proxy.
      await Promise.all(Array.from({ length: 5 }, (_unused, index) => post(`fill ${index}`)));
      const giveUp = new AbortController();
      const abandoned = post('abandoned', giveUp.signal).catch(() => undefined);
      await waiting;
      giveUp.abort();
      await abandoned;
      // One bucket's requests leave the proxy in order: had the abandoned one been kept, it
      // would have reached Discord before this one.
      expect((await post('later')).status).toBe(200);
      const contents = discord.readChannel(channelId).map((message) => message.content);
      expect(contents).toContain('later');
      expect(contents).not.toContain('abandoned');
    } finally {
      await queueing.close();
    }
  });

  it('answers 502 with a JSON body when Discord cannot be reached', async () => {
    const unreachable = await startRestProxy({
      upstreamUrl: 'http://127.0.0.1:9/api',
      host: '127.0.0.1',
      port: 0,
      logger: silentLogger,
      clock: systemClock,
    });
    try {
      const response = await call(unreachable.apiUrl, 'GET', '/users/@me');
      expect(response).toMatchObject({ status: 502, body: { code: 0 } });
    } finally {
      await unreachable.close();
    }
  });
});
