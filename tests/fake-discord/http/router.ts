import type { IncomingHttpHeaders } from 'node:http';
import type { BucketDefinition } from '../rules/rate-limiter.ts';
import type { UploadedFile } from '../services/message-body.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RouteRequest {
  method: HttpMethod;
  params: Record<string, string>;
  query: URLSearchParams;
  /** Parsed JSON body, or multipart `payload_json`; undefined when there was none. */
  body: unknown;
  files: UploadedFile[];
  headers: IncomingHttpHeaders;
}

export interface RouteResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface RouteDefinition {
  method: HttpMethod;
  /** Discord's path template, e.g. `/channels/:channelId/messages/:messageId`. */
  pattern: string;
  /** `bot`: requires `Authorization: Bot <token>` (401 otherwise). */
  auth: 'bot' | 'none';
  /** Counted against the bot's 50/s; interaction endpoints are exempt. */
  globalLimit: boolean;
  /** A per-route bucket, keyed by the named path parameter (the top-level resource). */
  bucket?: { definition: BucketDefinition; resourceParameter: string };
  /**
   * Whether this route serves these parameters, for two routes of one path shape: a channel
   * webhook and an interaction webhook are both `/webhooks/:id/:token` (told apart by the id).
   */
  accepts?(params: Record<string, string>): boolean;
  handle(request: RouteRequest): RouteResult | Promise<RouteResult>;
}

export interface RouteMatch {
  route: RouteDefinition;
  params: Record<string, string>;
}

/** Matches method + path against the route table; literal segments (`@me`, `@original`) win. */
export class Router {
  readonly #routes: { route: RouteDefinition; segments: string[] }[] = [];

  add(...routes: RouteDefinition[]): void {
    for (const route of routes) {
      this.#routes.push({ route, segments: route.pattern.split('/').filter(Boolean) });
    }
  }

  /** The route for this request; `methodNotAllowed` when only the path matches. */
  match(method: string, path: string): RouteMatch | 'methodNotAllowed' | undefined {
    const parts = path.split('/').filter(Boolean);
    let pathMatched = false;
    let best: (RouteMatch & { literals: number }) | undefined;
    for (const { route, segments } of this.#routes) {
      const params = matchSegments(segments, parts);
      if (params === undefined) continue;
      if (route.accepts !== undefined && !route.accepts(params)) continue;
      pathMatched = true;
      if (route.method !== method) continue;
      const literals = segments.filter((segment) => !segment.startsWith(':')).length;
      if (best === undefined || literals > best.literals) best = { route, params, literals };
    }
    if (best !== undefined) return { route: best.route, params: best.params };
    return pathMatched ? 'methodNotAllowed' : undefined;
  }
}

function matchSegments(
  segments: readonly string[],
  parts: readonly string[],
): Record<string, string> | undefined {
  if (segments.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (const [index, segment] of segments.entries()) {
    // Clients may percent-encode literals too (@discordjs/rest sends `/users/%40me`).
    const part = safeDecode(parts[index] ?? '');
    if (segment.startsWith(':')) {
      params[segment.slice(1)] = part;
    } else if (segment !== part) {
      return undefined;
    }
  }
  return params;
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
