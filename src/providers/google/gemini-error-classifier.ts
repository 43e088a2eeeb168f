import { ApiError } from '@google/genai';
import { ProviderError, type ProviderErrorKind } from '../../core/errors.ts';
import { isContextOverflow } from '../context-overflow.ts';
import { retryAfterFromDuration } from '../retry-after.ts';
import { classifyTransportError } from '../transport-error.ts';

/** Google's canonical status → kind (https://cloud.google.com/apis/design/errors). */
const KINDS_BY_STATUS: Record<string, ProviderErrorKind> = {
  UNAUTHENTICATED: 'auth',
  PERMISSION_DENIED: 'auth',
  RESOURCE_EXHAUSTED: 'rate_limit',
  NOT_FOUND: 'model',
  UNAVAILABLE: 'overloaded',
  INTERNAL: 'overloaded',
  DEADLINE_EXCEEDED: 'timeout',
  INVALID_ARGUMENT: 'bad_request',
  FAILED_PRECONDITION: 'bad_request',
};

const AUTH_REASONS = new Set(['API_KEY_INVALID', 'API_KEY_EXPIRED', 'API_KEY_SERVICE_BLOCKED']);

interface GoogleErrorBody {
  code?: number;
  message?: string;
  status?: string;
  details?: Array<Record<string, unknown>>;
}

/**
 * Sorts any failure of a Gemini call into a ProviderError kind. The SDK's ApiError carries the
 * status and the response body as its message (JSON); the body's canonical status, ErrorInfo
 * reason, QuotaFailure and RetryInfo details decide the rest.
 */
export function classifyGeminiError(error: unknown): ProviderError {
  if (error instanceof ProviderError) return error;
  if (error instanceof ApiError) return classifyApiError(error);
  const transport = classifyTransportError(error, 'google');
  if (transport) return transport;
  const message = error instanceof Error ? error.message : String(error);
  // The SDK's own stream parser reports a malformed or cut-off event with these errors.
  const corrupted = /exception parsing stream chunk|Incomplete JSON segment/i.test(message);
  return new ProviderError({
    kind: corrupted ? 'network' : 'unknown',
    message: `google: ${message}`,
    provider: 'google',
    cause: error,
  });
}

function classifyApiError(error: ApiError): ProviderError {
  const body = parseBody(error.message);
  const message = body?.message ?? error.message;
  const details = body?.details ?? [];
  const detail = (type: string) => details.find((item) => String(item['@type']).endsWith(type));
  const reason = detail('google.rpc.ErrorInfo')?.['reason'];
  const retryAfterMs = retryAfterFromDuration(detail('google.rpc.RetryInfo')?.['retryDelay']);
  const kind = kindOf({
    status: error.status,
    canonical: body?.status,
    reason: typeof reason === 'string' ? reason : undefined,
    dailyQuota: quotaIds(detail('google.rpc.QuotaFailure')).some((id) => /PerDay/i.test(id)),
    message,
  });
  return new ProviderError({
    kind,
    message: `google ${error.status}: ${message}`,
    status: error.status,
    retryAfterMs: kind === 'rate_limit' ? retryAfterMs : undefined,
    provider: 'google',
    cause: error,
  });
}

function kindOf(details: {
  status: number;
  canonical: string | undefined;
  reason: string | undefined;
  dailyQuota: boolean;
  message: string;
}): ProviderErrorKind {
  const { status, canonical, reason, dailyQuota, message } = details;
  // Gemini answers a bad key with 400 INVALID_ARGUMENT; the ErrorInfo reason tells them apart.
  if (reason !== undefined && AUTH_REASONS.has(reason)) return 'auth';
  if (status === 401 || status === 403) return 'auth';
  if (status === 429 || canonical === 'RESOURCE_EXHAUSTED') {
    // A per-day quota will not lift by retrying within a conversation.
    return dailyQuota ? 'quota' : 'rate_limit';
  }
  if (isContextOverflow({ message })) return 'context_overflow';
  if (status === 404) return 'model';
  if (status === 504) return 'timeout';
  const byStatus = canonical === undefined ? undefined : KINDS_BY_STATUS[canonical];
  if (byStatus) return byStatus;
  if (status >= 500) return 'overloaded';
  if (status === 400) return 'bad_request';
  return 'unknown';
}

function parseBody(message: string): GoogleErrorBody | undefined {
  // Mid-stream errors are prefixed "got status: …. "; the JSON body follows.
  const start = message.indexOf('{');
  if (start < 0) return undefined;
  try {
    const parsed = JSON.parse(message.slice(start)) as { error?: GoogleErrorBody };
    return parsed.error;
  } catch {
    return undefined;
  }
}

function quotaIds(quotaFailure: Record<string, unknown> | undefined): string[] {
  const violations = quotaFailure?.['violations'];
  if (!Array.isArray(violations)) return [];
  return violations
    .map((violation) => (violation as Record<string, unknown>)['quotaId'])
    .filter((id): id is string => typeof id === 'string');
}
