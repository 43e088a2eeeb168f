/** One HTTP request the fake Discord answered, with everything a test may assert on. */
export interface RequestLogEntry {
  /** Order of arrival, from 1. */
  id: number;
  method: string;
  /** The path after `/api/v10`, e.g. `/channels/123/messages`. */
  path: string;
  /** The matched route template (`/channels/:channelId/messages`), or the path when none matched. */
  route: string;
  query: Record<string, string>;
  /** Parsed JSON (or multipart `payload_json`). */
  body: unknown;
  files: { fieldName: string; filename: string; contentType: string | null; size: number }[];
  status: number;
  responseBody: unknown;
  /** Lower-cased request headers; the Authorization value is redacted. */
  requestHeaders: Record<string, string>;
  /** Lower-cased response headers (X-RateLimit-*, Retry-After, …). */
  responseHeaders: Record<string, string>;
  /** Epoch ms on the fake's clock. */
  startedAt: number;
  endedAt: number;
  durationMs: number;
  /** Set when an injected fault produced or delayed the response. */
  fault:
    | 'server-error'
    | 'server-error-after-write'
    | 'refusal'
    | 'malformed'
    | 'rate-limit-storm'
    | 'delay'
    | null;
}

/** Every request in arrival order; filters for the common questions tests ask. */
export class RequestLog {
  readonly #entries: RequestLogEntry[] = [];
  #nextId = 1;

  nextId(): number {
    return this.#nextId++;
  }

  add(entry: RequestLogEntry): void {
    this.#entries.push(entry);
  }

  entries(
    filter: { method?: string; route?: string | RegExp; status?: number } = {},
  ): RequestLogEntry[] {
    return this.#entries.filter(
      (entry) =>
        (filter.method === undefined || entry.method === filter.method) &&
        (filter.status === undefined || entry.status === filter.status) &&
        (filter.route === undefined ||
          (typeof filter.route === 'string'
            ? entry.route === filter.route || entry.path === filter.route
            : filter.route.test(entry.path))),
    );
  }

  clear(): void {
    this.#entries.length = 0;
  }
}
