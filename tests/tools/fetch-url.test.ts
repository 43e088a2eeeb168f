import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/logger.ts';
import type { ToolContext, ToolResult } from '../../src/core/tool.ts';
import { createFetchUrlTool } from '../../src/tools/fetch/fetch-url-tool.ts';
import type { HostResolver } from '../../src/tools/fetch/safe-fetch.ts';
import { ToolRegistry } from '../../src/tools/tool-registry.ts';
import { eventually } from './support/eventually.ts';
import { ManualClock } from '../../src/stream/testing/manual-clock.ts';
import { containing, matching } from './support/matchers.ts';

const CONTEXT: ToolContext = {
  scopeId: '110000000000000001',
  guildId: '110000000000000001',
  channelId: '310000000000000001',
  userId: '210000000000000001',
  messageId: '410000000000000001',
  turnId: 't',
  memberPermissions: '0',
  locale: 'en-US',
  featureFlags: { 'tools.fetch_url': true },
};

const PAGE = `<html><head><title>Loopback &amp; friends</title><script>steal()</script></head>
<body><h1>Hello</h1><p>This is the <b>test</b> page.</p></body></html>`;

/** A loopback web server playing the outside world, recording every request it gets. */
function startServer() {
  const requests: Array<{ path: string; host: string | undefined }> = [];
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://local');
    requests.push({ path: url.pathname, host: request.headers.host });
    switch (url.pathname) {
      case '/page':
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
        return;
      case '/redirect':
        response.writeHead(302, { location: url.searchParams.get('to') ?? '/' }).end();
        return;
      case '/gzip':
        response
          .writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' })
          .end(gzipSync(PAGE));
        return;
      case '/big':
        response.writeHead(200, { 'content-type': 'text/plain' }).end('a'.repeat(300_000));
        return;
      case '/latin1':
        response
          .writeHead(200, { 'content-type': 'text/plain; charset=iso-8859-1' })
          .end(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
        return;
      case '/png':
        response.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from([0x89, 0x50]));
        return;
      case '/slow':
        return; // never answers
      default:
        response.writeHead(404, { 'content-type': 'text/plain' }).end('not here');
    }
  });
  return { server, requests };
}

describe('fetch_url', () => {
  const { server, requests } = startServer();
  let origin: string;
  let port: number;
  let clock: ManualClock;

  function registry(options: { allowLoopback?: boolean; resolveHost?: HostResolver } = {}) {
    return new ToolRegistry({ clock, logger: silentLogger }).register(
      createFetchUrlTool({
        clock,
        limits: { maxBytes: 100_000 },
        resolveHost:
          options.resolveHost ?? (() => Promise.resolve([{ address: '203.0.113.9', family: 4 }])),
        testOnlyAllowLoopbackFirstHop: options.allowLoopback ?? true,
      }),
    );
  }

  async function fetchUrl(
    url: string,
    options: { allowLoopback?: boolean; resolveHost?: HostResolver; context?: ToolContext } = {},
  ): Promise<ToolResult> {
    return registry(options).execute(
      { id: 'c', name: 'fetch_url', input: { url } },
      options.context ?? CONTEXT,
      new AbortController().signal,
    );
  }

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    origin = `http://127.0.0.1:${port}`;
  });
  beforeEach(() => {
    requests.length = 0;
    clock = new ManualClock();
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('is off unless the scope turns it on', async () => {
    const off = { ...CONTEXT, featureFlags: {} };
    expect(registry().specs(off)).toEqual([]);
    expect(await fetchUrl(`${origin}/page`, { context: off })).toMatchObject({ ok: false });
    expect(
      registry()
        .specs(CONTEXT)
        .map((spec) => spec.name),
    ).toEqual(['fetch_url']);
    expect(requests).toEqual([]);
  });

  it('returns the readable text of a page (test-only loopback allowance for the first hop)', async () => {
    expect(await fetchUrl(`${origin}/page`)).toEqual({
      ok: true,
      output: `URL: ${origin}/page\nStatus: 200\nTitle: Loopback & friends\n\n# Hello\n\nThis is the test page.`,
    });
    expect(await fetchUrl(`${origin}/gzip`)).toMatchObject({
      output: containing('This is the test page.'),
    });
    expect(await fetchUrl(`${origin}/latin1`)).toMatchObject({
      output: containing('café'),
    });
  });

  it.each([
    ['127.0.0.1', 'http://127.0.0.1/'],
    ['a 127.x address in decimal form', 'http://2130706433/'],
    ['10.x', 'http://10.1.2.3/admin'],
    ['the metadata address', 'http://169.254.169.254/latest/meta-data/'],
    ['::1', 'http://[::1]/'],
    ['an IPv4-mapped loopback', 'http://[::ffff:127.0.0.1]/'],
    ['0.0.0.0', 'http://0.0.0.0/'],
    ['192.168.x', 'https://192.168.1.1/'],
  ])('refuses %s without connecting', async (_label, url) => {
    const result = await fetchUrl(url, { allowLoopback: false });
    expect(result).toMatchObject({ ok: false, error: matching(/^Refused: .* is /) });
    expect(requests).toEqual([]);
  });

  it('refuses the loopback test server itself without the test-only allowance', async () => {
    expect(await fetchUrl(`${origin}/page`, { allowLoopback: false })).toEqual({
      ok: false,
      error: 'Refused: 127.0.0.1 is a loopback address; only public addresses can be fetched.',
    });
    expect(requests).toEqual([]);
  });

  it.each([
    ['127.0.0.1 (the same test server)', () => `${origin}/page`],
    ['10.x', () => 'http://10.0.0.1/'],
    ['the metadata address', () => 'http://169.254.169.254/latest/meta-data/iam/'],
    ['::1', () => `http://[::1]:${port}/page`],
    ['a private address in IPv4-mapped form', () => 'http://[::ffff:192.168.0.1]/'],
  ])('refuses a redirect to %s', async (_label, target) => {
    const result = await fetchUrl(`${origin}/redirect?to=${encodeURIComponent(target())}`);
    expect(result).toMatchObject({ ok: false, error: matching(/^Refused: .* is /) });
    expect(requests.map((request) => request.path)).toEqual(['/redirect']);
  });

  it('refuses names that resolve to an inside address, even when another address is public', async () => {
    const metadata: HostResolver = () =>
      Promise.resolve([{ address: '169.254.169.254', family: 4 }]);
    expect(await fetchUrl('http://metadata.example/', { resolveHost: metadata })).toEqual({
      ok: false,
      error:
        'Refused: metadata.example (169.254.169.254) is a link-local address (cloud metadata lives there); only public addresses can be fetched.',
    });
    const mixed: HostResolver = () =>
      Promise.resolve([
        { address: '93.184.215.14', family: 4 },
        { address: '10.0.0.7', family: 4 },
      ]);
    expect(await fetchUrl('https://mixed.example/', { resolveHost: mixed })).toMatchObject({
      ok: false,
      error: containing('10.0.0.7'),
    });
  });

  it('refuses a name the system resolver maps to loopback (localhost)', async () => {
    const systemResolving = new ToolRegistry({ clock, logger: silentLogger }).register(
      createFetchUrlTool({ clock }),
    );
    const result = await systemResolving.execute(
      { id: 'c', name: 'fetch_url', input: { url: `http://localhost:${port}/page` } },
      CONTEXT,
      new AbortController().signal,
    );
    expect(result).toMatchObject({
      ok: false,
      error: matching(/^Refused: localhost \(.*\) is a loopback address/),
    });
    expect(requests).toEqual([]);
  });

  it('connects to the address it checked, however DNS answers later (no rebinding)', async () => {
    let lookups = 0;
    const rebinding: HostResolver = () => {
      lookups += 1;
      return Promise.resolve([{ address: lookups === 1 ? '127.0.0.1' : '10.0.0.1', family: 4 }]);
    };
    const result = await fetchUrl(`http://rebind.example:${port}/page`, { resolveHost: rebinding });
    expect(result).toMatchObject({ ok: true, output: containing('test page') });
    expect(lookups).toBe(1);
    expect(requests).toEqual([{ path: '/page', host: `rebind.example:${port}` }]);
  });

  it('refuses other schemes and URLs carrying credentials', async () => {
    for (const url of ['file:///etc/passwd', 'ftp://example.com/', 'javascript:alert(1)']) {
      expect(await fetchUrl(url)).toMatchObject({
        ok: false,
        error: containing('Only http and https'),
      });
    }
    expect(await fetchUrl(`http://user:pass@127.0.0.1:${port}/page`)).toMatchObject({
      ok: false,
      error: 'URLs with a user name or password are not fetched.',
    });
  });

  it('reads at most the byte cap and says the page was cut', async () => {
    const result = await fetchUrl(`${origin}/big`);
    expect(result.ok).toBe(true);
    const output = result.ok ? result.output : '';
    expect(output).toMatch(/\[Only the first 100 kB of the page were read\.\]$/);
    expect(output.length).toBeLessThan(13_000);
  });

  it('refuses binary content and reports HTTP errors as they are', async () => {
    expect(await fetchUrl(`${origin}/png`)).toEqual({
      ok: false,
      error: 'The page is image/png, not text, so it cannot be read.',
    });
    expect(await fetchUrl(`${origin}/missing`)).toMatchObject({
      ok: true,
      output: containing('Status: 404'),
    });
  });

  it('gives up on a page that does not answer within the time cap', async () => {
    const pending = fetchUrl(`${origin}/slow`);
    await eventually(() => requests.length === 1);
    await clock.advance(15_000);
    expect(await pending).toEqual({
      ok: false,
      error: 'The page took longer than 15 s to load.',
    });
  });
});
