import type { DiscordApiError } from '../rules/discord-error.ts';
import {
  bucketHash,
  rateLimitHeaders,
  retryAfterHeader,
  seconds,
  type BucketDecision,
} from '../rules/rate-limiter.ts';
import type { Fault } from './fault-injector.ts';
import type { RequestLogEntry } from './request-log.ts';
import type { RouteDefinition } from './router.ts';

/** A response before it is written: status, JSON body, headers, and the fault behind it. */
export interface Reply {
  status: number;
  body: unknown;
  headers: Record<string, string>;
  fault: RequestLogEntry['fault'];
}

/** A DiscordApiError as Discord sends it (its own headers over the bucket's). */
export function errorReply(
  error: DiscordApiError,
  options: { headers: Record<string, string>; fault: RequestLogEntry['fault'] },
): Reply {
  return {
    status: error.status,
    body: error.body(),
    headers: { ...options.headers, ...error.headers },
    fault: options.fault,
  };
}

/** An injected 5xx, 403 refusal, malformed body or 429 storm (delays are applied before replying, never here). */
const FAILURE_BODIES: Partial<Record<number, { message: string; code: number }>> = {
  403: { message: 'Missing Access', code: 50001 },
  404: { message: 'Unknown Channel', code: 10003 },
};

export function faultReply(input: {
  fault: Exclude<Fault, { kind: 'delay' }>;
  route: RouteDefinition | undefined;
  entry: RequestLogEntry;
  timeScale: number;
  now: number;
}): Reply {
  const { fault, route } = input;
  if (fault.kind === 'server-error' || fault.kind === 'server-error-after-write') {
    return {
      status: fault.status,
      body: FAILURE_BODIES[fault.status] ?? { message: `${fault.status}: Server Error`, code: 0 },
      headers: {},
      fault: fault.kind,
    };
  }
  if (fault.kind === 'refusal') {
    return {
      status: 403,
      body: {
        message: fault.code === 50001 ? 'Missing Access' : 'Missing Permissions',
        code: fault.code,
      },
      headers: {},
      fault: 'refusal',
    };
  }
  if (fault.kind === 'malformed') {
    return { status: 200, body: fault.body, headers: {}, fault: 'malformed' };
  }
  const global = fault.scope === 'global';
  const headers: Record<string, string> = {
    'retry-after': retryAfterHeader(fault.retryAfterMs, input.timeScale),
    'x-ratelimit-scope': fault.scope,
    ...(global
      ? { 'x-ratelimit-global': 'true' }
      : rateLimitHeaders({
          allowed: false,
          limit: route?.bucket?.definition.limit ?? 1,
          remaining: 0,
          resetAt: input.now + fault.retryAfterMs,
          resetAfterMs: fault.retryAfterMs,
          hash: bucketHash(route?.bucket?.definition.name ?? input.entry.route),
        })),
  };
  return {
    status: 429,
    body: {
      message:
        fault.scope === 'shared'
          ? 'The resource is being rate limited.'
          : 'You are being rate limited.',
      retry_after: seconds(fault.retryAfterMs),
      global,
    },
    headers,
    fault: 'rate-limit-storm',
  };
}

/** 429 for the bot's global limit: X-RateLimit-Global and scope `global`. */
export function globalLimitReply(
  decision: BucketDecision,
  options: { timeScale: number; fault: RequestLogEntry['fault'] },
): Reply {
  return {
    status: 429,
    body: {
      message: 'You are being rate limited.',
      retry_after: seconds(decision.resetAfterMs),
      global: true,
    },
    headers: {
      'retry-after': retryAfterHeader(decision.resetAfterMs, options.timeScale),
      'x-ratelimit-global': 'true',
      'x-ratelimit-scope': 'global',
    },
    fault: options.fault,
  };
}

/** 429 for an exhausted per-route bucket: the bucket headers plus scope `user`. */
export function bucketLimitReply(
  decision: BucketDecision,
  options: { headers: Record<string, string>; timeScale: number; fault: RequestLogEntry['fault'] },
): Reply {
  return {
    status: 429,
    body: {
      message: 'You are being rate limited.',
      retry_after: seconds(decision.resetAfterMs),
      global: false,
    },
    headers: {
      ...options.headers,
      'retry-after': retryAfterHeader(decision.resetAfterMs, options.timeScale),
      'x-ratelimit-scope': 'user',
    },
    fault: options.fault,
  };
}
