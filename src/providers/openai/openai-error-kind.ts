import type { ProviderErrorKind } from '../../core/errors.ts';
import { isContextOverflow } from '../context-overflow.ts';

const CONTENT_FILTER_CODES = new Set(['content_filter', 'content_policy_violation']);
const MODEL_CODES = new Set(['model_not_found', 'invalid_model', 'model_not_available']);
const QUOTA_CODES = new Set([
  'insufficient_quota',
  'billing_hard_limit_reached',
  'billing_not_active',
]);

/** What an OpenAI or OpenAI-compatible server said about a failed call. */
export interface OpenAIErrorDetails {
  status: number | undefined;
  code: string | undefined;
  type: string | undefined;
  message: string;
}

/**
 * The ProviderError kind of an OpenAI-style failure: the HTTP status first, then the error
 * `code`/`type` (which also arrive mid-stream, without a status), and the message text only for
 * context overflow. Free of the SDK, so a call made without it is sorted the same way.
 */
export function openAIErrorKind(details: OpenAIErrorDetails): ProviderErrorKind {
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

export function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
