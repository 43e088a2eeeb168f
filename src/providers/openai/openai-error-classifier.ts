import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { ProviderError, type ProviderErrorKind } from '../../core/errors.ts';
import { isContextOverflow } from '../context-overflow.ts';
import { retryAfterFromHeaders } from '../retry-after.ts';
import { classifyTransportError } from '../transport-error.ts';

const CONTENT_FILTER_CODES = new Set(['content_filter', 'content_policy_violation']);
const MODEL_CODES = new Set(['model_not_found', 'invalid_model', 'model_not_available']);
const QUOTA_CODES = new Set([
  'insufficient_quota',
  'billing_hard_limit_reached',
  'billing_not_active',
]);

/**
 * Sorts any failure of an OpenAI or OpenAI-compatible call into a ProviderError kind. Uses the
 * HTTP status first, then the error `code`/`type` (which also arrive mid-stream, without a
 * status), and message text only for context overflow.
 */
export function classifyOpenAIError(error: unknown): ProviderError {
  if (error instanceof ProviderError) return error;
  if (error instanceof APIUserAbortError) {
    // Our own aborts never get here (a stopped stream just ends); this one cut the request.
    return failure('network', 'the request was aborted', error, undefined);
  }
  if (error instanceof APIConnectionTimeoutError) {
    return failure('timeout', 'the request timed out', error, undefined);
  }
  if (error instanceof APIConnectionError) {
    return (
      classifyTransportError(error.cause ?? error, 'openai') ??
      failure('network', error.message, error, undefined)
    );
  }
  // `instanceof` widens the SDK's generic parameters to `any`; restore the declared ones.
  if (error instanceof APIError) return classifyApiError(error as APIError);
  return (
    classifyTransportError(error, 'openai') ??
    failure('unknown', error instanceof Error ? error.message : String(error), error, undefined)
  );
}

function classifyApiError(error: APIError): ProviderError {
  const body = (error.error ?? {}) as { message?: unknown; code?: unknown; type?: unknown };
  const code = stringOrUndefined(error.code) ?? stringOrUndefined(body.code);
  const type = stringOrUndefined(error.type) ?? stringOrUndefined(body.type);
  const message = stringOrUndefined(body.message) ?? error.message;
  const status = error.status;
  const kind = kindOf({ status, code, type, message });
  const retryAfterMs = kind === 'rate_limit' ? retryAfterFromHeaders(error.headers) : undefined;
  return new ProviderError({
    kind,
    message: `openai${status === undefined ? '' : ` ${status}`}: ${message}`,
    status,
    retryAfterMs,
    provider: 'openai',
    cause: error,
  });
}

function kindOf(details: {
  status: number | undefined;
  code: string | undefined;
  type: string | undefined;
  message: string;
}): ProviderErrorKind {
  const { status, code, type, message } = details;
  if ((code && QUOTA_CODES.has(code)) || type === 'insufficient_quota' || status === 402)
    return 'quota';
  if (status === 401 || status === 403 || code === 'invalid_api_key') return 'auth';
  if (status === 429 || code === 'rate_limit_exceeded') return 'rate_limit';
  if (isContextOverflow({ code, message }) || status === 413) return 'context_overflow';
  if ((code && CONTENT_FILTER_CODES.has(code)) || type === 'content_filter')
    return 'content_filter';
  if ((code && MODEL_CODES.has(code)) || status === 404) return 'model';
  if (status === 408 || status === 504) return 'timeout';
  if (status !== undefined && status >= 500) return 'overloaded';
  if (status === undefined && (type === 'server_error' || code === 'server_error'))
    return 'overloaded';
  if (status === 400 || status === 422) return 'bad_request';
  return 'unknown';
}

function failure(
  kind: ProviderErrorKind,
  message: string,
  cause: unknown,
  status: number | undefined,
): ProviderError {
  return new ProviderError({
    kind,
    message: `openai: ${message}`,
    status,
    provider: 'openai',
    cause,
  });
}

function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
