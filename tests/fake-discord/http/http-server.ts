import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DiscordApiError } from '../rules/discord-error.ts';
import { rateLimitHeaders } from '../rules/rate-limiter.ts';
import type { FakeDiscordContext } from '../services/fake-discord-context.ts';
import type { FaultInjector } from './fault-injector.ts';
import {
  bucketLimitReply,
  errorReply,
  faultReply,
  globalLimitReply,
  type Reply,
} from './limit-replies.ts';
import { parseRequestBody } from './request-body.ts';
import type { RequestLog, RequestLogEntry } from './request-log.ts';
import type { Router } from './router.ts';

const API_PREFIX = '/api/v10';

export interface HttpServerOptions {
  context: FakeDiscordContext;
  router: Router;
  requestLog: RequestLog;
  faults: FaultInjector;
  /** Takes a PUT to an upload URL (`/upload/...`); false when no file was announced there. */
  upload: (path: string, data: Buffer) => boolean;
  /** Serves `/attachments/...` (the CDN stand-in); undefined when not found. */
  attachment: (path: string) => { data: Buffer; contentType: string | null } | undefined;
}

/**
 * The REST side: `/api/v10/*` through faults → auth (401) → global limit → route bucket →
 * body parsing → handler, with X-RateLimit-* headers on every response of a limited route,
 * every exchange recorded in the request log and published on the hub. WebSocket upgrades are
 * handed to the gateway.
 */
export class HttpServer {
  readonly #options: HttpServerOptions;
  readonly #server: Server;

  constructor(options: HttpServerOptions) {
    this.#options = options;
    this.#server = createServer((request, response) => {
      this.#handle(request, response).catch((error: unknown) => {
        response.statusCode = 500;
        response.end(JSON.stringify({ message: String(error), code: 0 }));
      });
    });
    this.#server.on('upgrade', (request, socket, head: Buffer) => {
      if (!options.context.gateway.handleUpgrade(request, socket, head)) socket.destroy();
    });
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    return (this.#server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const raw = await readBody(request);
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (url.pathname.startsWith('/attachments/')) {
      this.#serveAttachment(url.pathname, response);
      return;
    }
    if (url.pathname.startsWith('/upload/') && request.method === 'PUT') {
      const taken = this.#options.upload(url.pathname, raw);
      response.writeHead(taken ? 200 : 404).end();
      return;
    }
    const { context, requestLog } = this.#options;
    const startedAt = context.world.clock.now();
    const method = (request.method ?? 'GET').toUpperCase();
    const path = url.pathname.startsWith(API_PREFIX)
      ? url.pathname.slice(API_PREFIX.length) || '/'
      : url.pathname;
    const match = url.pathname.startsWith(API_PREFIX)
      ? this.#options.router.match(method, path)
      : undefined;
    const route = typeof match === 'object' ? match.route : undefined;
    const entry: RequestLogEntry = {
      id: requestLog.nextId(),
      method,
      path,
      route: route?.pattern ?? path,
      query: Object.fromEntries(url.searchParams),
      body: undefined,
      files: [],
      status: 0,
      responseBody: undefined,
      requestHeaders: redactHeaders(request.headers),
      responseHeaders: {},
      startedAt,
      endedAt: startedAt,
      durationMs: 0,
      fault: null,
    };
    const reply = await this.#reply({ request, raw, url, method, path, match, entry });
    const headers = { ...reply.headers };
    const text = reply.body === undefined ? '' : JSON.stringify(reply.body);
    if (text !== '') headers['content-type'] = 'application/json';
    response.writeHead(reply.status, headers);
    response.end(text);
    entry.status = reply.status;
    entry.responseBody = reply.body;
    entry.responseHeaders = headers;
    entry.fault = reply.fault;
    entry.endedAt = context.world.clock.now();
    entry.durationMs = entry.endedAt - entry.startedAt;
    requestLog.add(entry);
    context.hub.emit({ type: 'request', entry });
  }

  async #reply(input: {
    request: IncomingMessage;
    raw: Buffer;
    url: URL;
    method: string;
    path: string;
    match: ReturnType<Router['match']>;
    entry: RequestLogEntry;
  }): Promise<Reply> {
    const { context } = this.#options;
    const { match, entry } = input;
    const faults = this.#options.faults.take({
      method: input.method,
      route: entry.route,
      path: input.path,
    });
    let fault: RequestLogEntry['fault'] = null;
    for (const injected of faults.filter((item) => item.kind === 'delay')) {
      await context.world.clock.sleep(injected.delayMs);
      fault = 'delay';
    }
    const afterWrite = faults.find((item) => item.kind === 'server-error-after-write');
    const failing = faults.find(
      (item) => item.kind !== 'delay' && item.kind !== 'server-error-after-write',
    );
    if (failing !== undefined) {
      // What was sent is recorded even when a fault answers it (a retry's body can be compared).
      entry.body = await parseRequestBody(input.request.headers['content-type'], input.raw).then(
        (parsed) => parsed.body,
        () => undefined,
      );
      const matched = typeof match === 'object' ? match.route : undefined;
      return faultReply({
        fault: failing,
        route: matched,
        entry,
        timeScale: context.rateLimiter.timeScale,
        now: context.world.clock.now(),
      });
    }
    if (match === undefined) {
      return errorReply(DiscordApiError.http(404, 'Not Found'), { headers: {}, fault });
    }
    if (match === 'methodNotAllowed') {
      return errorReply(DiscordApiError.http(405, 'Method Not Allowed'), { headers: {}, fault });
    }
    const { route, params } = match;
    const authorized = input.request.headers.authorization === `Bot ${context.options.token}`;
    if (route.auth === 'bot' && !authorized) {
      return errorReply(DiscordApiError.http(401, 'Unauthorized'), { headers: {}, fault });
    }
    if (route.globalLimit && context.options.globalLimit) {
      const global = context.rateLimiter.takeGlobal(authorized ? 'bot' : 'anonymous');
      if (!global.allowed)
        return globalLimitReply(global, { timeScale: context.rateLimiter.globalTimeScale, fault });
    }
    let bucketHeaders: Record<string, string> = {};
    if (route.bucket !== undefined) {
      const resource = params[route.bucket.resourceParameter] ?? 'global';
      const decision = context.rateLimiter.take(route.bucket.definition, resource);
      bucketHeaders = rateLimitHeaders(decision);
      if (!decision.allowed) {
        return bucketLimitReply(decision, {
          headers: bucketHeaders,
          timeScale: context.rateLimiter.timeScale,
          fault,
        });
      }
    }
    try {
      const parsed = await parseRequestBody(input.request.headers['content-type'], input.raw);
      entry.body = parsed.body;
      entry.files = parsed.files.map((file) => ({
        fieldName: file.fieldName,
        filename: file.filename,
        contentType: file.contentType,
        size: file.data.length,
      }));
      const result = await route.handle({
        method: route.method,
        params,
        query: input.url.searchParams,
        body: parsed.body,
        files: parsed.files,
        headers: input.request.headers,
      });
      if (afterWrite !== undefined) {
        // The write stands; only its answer is lost.
        return faultReply({
          fault: afterWrite,
          route,
          entry,
          timeScale: context.rateLimiter.timeScale,
          now: context.world.clock.now(),
        });
      }
      return {
        status: result.status,
        body: result.body,
        headers: { ...bucketHeaders, ...result.headers },
        fault,
      };
    } catch (error) {
      if (!(error instanceof DiscordApiError)) throw error;
      return errorReply(error, { headers: bucketHeaders, fault });
    }
  }

  #serveAttachment(path: string, response: ServerResponse): void {
    const found = this.#options.attachment(path);
    if (found === undefined) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': found.contentType ?? 'application/octet-stream' });
    response.end(found.data);
  }
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function redactHeaders(headers: IncomingMessage['headers']): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(', ') : value;
    result[name] = name === 'authorization' ? text.replace(/ .*/, ' [redacted]') : text;
  }
  return result;
}
