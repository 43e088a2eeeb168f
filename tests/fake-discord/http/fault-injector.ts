/** Which requests a fault applies to: a method and a route template or path pattern. */
export interface FaultTarget {
  method?: string;
  /** A route template (`/channels/:channelId/messages`), an exact path, or a RegExp on the path. */
  route?: string | RegExp;
  /** How many matching requests it affects (default: all until cleared). */
  times?: number;
}

/** Statuses `failRoute` can answer with: a flaky edge's 5xx, or a refusal such as 403 50001. */
export type FailureStatus = 403 | 404 | 500 | 502 | 503 | 504;

export type Fault =
  | { kind: 'server-error'; status: FailureStatus }
  | { kind: 'server-error-after-write'; status: FailureStatus }
  | { kind: 'refusal'; code: 50001 | 50013 }
  | { kind: 'malformed'; body: unknown }
  | {
      kind: 'rate-limit-storm';
      retryAfterMs: number;
      scope: 'user' | 'shared' | 'global';
    }
  | { kind: 'delay'; delayMs: number };

interface ActiveFault {
  target: FaultTarget;
  fault: Fault;
  remaining: number;
}

/**
 * Faults a test arms for matching requests: 5xx responses (as a flaky edge would send), 403
 * refusals, malformed bodies, 429 storms with any scope, and slow responses. Each fires `times`
 * times, in arming order.
 */
export class FaultInjector {
  readonly #faults: ActiveFault[] = [];

  /**
   * Answers matching requests with a 5xx status (discord.js retries these, then throws), or a
   * 403/404 as Discord refuses a read (Missing Access, Unknown Channel).
   */
  failRoute(target: FaultTarget & { status?: FailureStatus }): void {
    this.#add(target, { kind: 'server-error', status: target.status ?? 500 });
  }

  /**
   * Handles matching requests as usual — the write takes effect (the message is posted, its
   * MESSAGE_CREATE dispatched) — then answers with a 5xx instead of the result, as an edge that
   * lost the response does: the client cannot tell whether its write happened.
   */
  failAfterWrite(target: FaultTarget & { status?: FailureStatus }): void {
    this.#add(target, { kind: 'server-error-after-write', status: target.status ?? 500 });
  }

  /**
   * Answers matching requests with 403 and Discord's Missing Access (50001, the default) or
   * Missing Permissions (50013), as when a permission is taken away mid-reply.
   */
  refuseRoute(target: FaultTarget & { code?: 50001 | 50013 }): void {
    this.#add(target, { kind: 'refusal', code: target.code ?? 50001 });
  }

  /** 403 50013 Missing Permissions, as when a moderator takes a permission away between writes. */
  forbidRoute(target: FaultTarget): void {
    this.refuseRoute({ ...target, code: 50013 });
  }

  /**
   * Answers matching requests with 200 and `body` instead of what the route returns: what a
   * Discord-compatible server with gaps might send (an object for a list, null fields).
   */
  malformRoute(target: FaultTarget & { body: unknown }): void {
    this.#add(target, { kind: 'malformed', body: target.body });
  }

  /** Answers matching requests with 429 and `retry_after`, as a storm of shared or global limits. */
  rateLimitStorm(
    target: FaultTarget & { retryAfterMs: number; scope?: 'user' | 'shared' | 'global' },
  ): void {
    this.#add(target, {
      kind: 'rate-limit-storm',
      retryAfterMs: target.retryAfterMs,
      scope: target.scope ?? 'shared',
    });
  }

  /** Holds matching requests for `delayMs` before handling them normally. */
  slowRoute(target: FaultTarget & { delayMs: number }): void {
    this.#add(target, { kind: 'delay', delayMs: target.delayMs });
  }

  clear(): void {
    this.#faults.length = 0;
  }

  /** The faults that fire for this request (consuming one use of each). */
  take(request: { method: string; route: string; path: string }): Fault[] {
    const fired: Fault[] = [];
    for (const active of this.#faults) {
      if (active.remaining <= 0 || !matches(active.target, request)) continue;
      active.remaining -= 1;
      fired.push(active.fault);
    }
    return fired;
  }

  #add(target: FaultTarget, fault: Fault): void {
    this.#faults.push({ target, fault, remaining: target.times ?? Number.POSITIVE_INFINITY });
  }
}

function matches(
  target: FaultTarget,
  request: { method: string; route: string; path: string },
): boolean {
  if (target.method !== undefined && target.method.toUpperCase() !== request.method) return false;
  if (target.route === undefined) return true;
  if (typeof target.route === 'string') {
    return target.route === request.route || target.route === request.path;
  }
  return target.route.test(request.path);
}
