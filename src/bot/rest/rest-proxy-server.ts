import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { populateErrorResponse } from '@discordjs/proxy';
// @discordjs/rest itself, not discord.js's re-export: @discordjs/proxy's error helpers check
// `instanceof` against this (ESM) copy, and discord.js loads the CommonJS one.
import { DefaultRestOptions, REST, RESTEvents, type RequestMethod } from '@discordjs/rest';
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import {
  budgetOf,
  DISCORD_GLOBAL_REQUESTS_PER_SECOND,
  GlobalRequestPacer,
} from './global-request-pacer.ts';

export interface RestProxyOptions {
  /** Discord's REST base, e.g. https://discord.com/api (the loopback Discord's in tests). */
  upstreamUrl: string;
  host: string;
  /** 0 picks a free port. */
  port: number;
  logger: Logger;
  clock: Clock;
  /** Discord's global limit of the bot; default 50 (the proxy uses 80% of it). */
  globalRateLimit?: number;
}

export interface RunningRestProxy {
  /** The base to give the bot as DISCORD_REST_PROXY, e.g. http://127.0.0.1:8080/api. */
  readonly apiUrl: string;
  /** Stops accepting requests and waits for the ones in flight (queued ones included). */
  close(): Promise<void>;
}

/** Interaction answers: exempt from the global limit on Discord, so never paced here. */
const EXEMPT_FROM_GLOBAL_LIMIT = /\/(interactions|webhooks)\//;
/** Headers of one connection, not of the response: the proxy's own connection sets them. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length']);
/** Interaction and webhook tokens are credentials: logged as a placeholder. */
const TOKEN_SEGMENT = /\/(interactions|webhooks)\/(\d+)\/[^/?]+/;

/**
 * The shared REST proxy: every bot process sends its requests here, and one @discordjs/rest
 * instance holds the bot's single global budget (80% of Discord's limit, 40/s by default, in
 * the in-process pacer's sliding window) and its per-route buckets for all of them. Built on @discordjs/proxy's contract
 * (`/api/v10/<route>`, the caller's Authorization forwarded, the proxy needs no token) with
 * three changes to its `proxyRequests` handler: the body is buffered so a retry after a 429
 * or 5xx re-sends it, a caller that gives up aborts its queued request (no late duplicate),
 * and Discord's X-RateLimit-* headers pass through so the bot keeps pacing its edits by them.
 */
export async function startRestProxy(options: RestProxyOptions): Promise<RunningRestProxy> {
  const { logger } = options;
  const discordLimit = options.globalRateLimit ?? DISCORD_GLOBAL_REQUESTS_PER_SECOND;
  const pacer = new GlobalRequestPacer({ clock: options.clock, limit: budgetOf(discordLimit) });
  const rest = new REST({
    api: options.upstreamUrl,
    // @discordjs/rest also counts the global limit itself (50 unless told): the pacer is stricter.
    globalRequestsPerSecond: discordLimit,
    makeRequest: async (url, init) => {
      if (!EXEMPT_FROM_GLOBAL_LIMIT.test(url)) await pacer.acquire();
      init.signal?.throwIfAborted();
      return DefaultRestOptions.makeRequest(url, init);
    },
  });
  rest.on(RESTEvents.RateLimited, (info) =>
    logger.debug({ route: info.route, global: info.global, waitMs: info.timeToReset }, 'waiting'),
  );
  const server = createServer((request, response) => {
    if (request.url === '/healthz') {
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
      return;
    }
    void forward({ rest, request, response, logger, clock: options.clock });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, resolve);
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const apiUrl = `http://${host}:${address.port}/api`;
  logger.info({ apiUrl, upstream: options.upstreamUrl }, 'REST proxy listening');
  return {
    apiUrl,
    close: async () => {
      server.closeIdleConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rest.clearHashSweeper();
      rest.clearHandlerSweeper();
    },
  };
}

async function forward(input: {
  rest: REST;
  request: IncomingMessage;
  response: ServerResponse;
  logger: Logger;
  clock: Clock;
}): Promise<void> {
  const { rest, request, response, logger } = input;
  const startedAt = input.clock.now();
  const url = new URL(request.url ?? '/', 'http://proxy');
  const route = url.pathname.replace(/^\/api(\/v\d+)?/, '');
  const callerGone = new AbortController();
  response.on('close', () => {
    if (!response.writableFinished) callerGone.abort();
  });
  try {
    const body = await readBody(request);
    const upstream = await rest.queueRequest({
      fullRoute: route as `/${string}`,
      method: (request.method ?? 'GET') as RequestMethod,
      body: body.length === 0 ? undefined : body,
      passThroughBody: true,
      query: url.searchParams,
      auth: false,
      headers: forwardedHeaders(request),
      signal: callerGone.signal,
    });
    response.statusCode = upstream.status;
    for (const [name, value] of upstream.headers) {
      if (!HOP_BY_HOP.has(name)) response.setHeader(name, value);
    }
    response.end(Buffer.from(await upstream.arrayBuffer()));
  } catch (error) {
    if (callerGone.signal.aborted) return;
    if (!populateErrorResponse(response, error)) {
      logger.warn({ err: error, route: loggable(route) }, 'REST proxy could not reach Discord');
      response.statusCode = 502;
      response.setHeader('content-type', 'application/json');
      response.write(JSON.stringify({ message: 'REST proxy: upstream unreachable', code: 0 }));
    }
    response.end();
  } finally {
    logger.debug(
      {
        method: request.method,
        route: loggable(route),
        status: response.statusCode,
        durationMs: input.clock.now() - startedAt,
      },
      'proxied',
    );
  }
}

function forwardedHeaders(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of ['authorization', 'content-type', 'x-audit-log-reason']) {
    const value = request.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  return headers;
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function loggable(route: string): string {
  return route.replace(TOKEN_SEGMENT, '/$1/$2/:token');
}
