import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from '@anthropic-ai/sdk';
import { ProviderError, type ProviderErrorKind } from '../../core/errors.ts';
import { isContextOverflow } from '../context-overflow.ts';
import { retryAfterFromHeaders } from '../retry-after.ts';
import { classifyTransportError } from '../transport-error.ts';

/** Anthropic's error `type` → kind; it arrives both on HTTP errors and on mid-stream `error` events. */
const KINDS_BY_TYPE: Record<string, ProviderErrorKind> = {
  authentication_error: 'auth',
  permission_error: 'auth',
  billing_error: 'quota',
  not_found_error: 'model',
  rate_limit_error: 'rate_limit',
  overloaded_error: 'overloaded',
  api_error: 'overloaded',
  timeout_error: 'timeout',
};

/** Spend limits answer 429 but will not lift by waiting: they are billing, not rate, limits. */
const QUOTA_ERROR_CODES = new Set([
  'contract_spend_limit_reached',
  'enforced_spend_limit_reached',
  'linked_organization_spend_limit_reached',
  'linked_organization_billing_unavailable',
]);

/** Sorts any failure of an Anthropic call into a ProviderError kind. */
export function classifyAnthropicError(error: unknown): ProviderError {
  if (error instanceof ProviderError) return error;
  if (error instanceof APIUserAbortError)
    return failure('network', 'the request was aborted', error);
  if (error instanceof APIConnectionTimeoutError)
    return failure('timeout', 'the request timed out', error);
  if (error instanceof APIConnectionError) {
    return (
      classifyTransportError(error.cause ?? error, 'anthropic') ??
      failure('network', error.message, error)
    );
  }
  // `instanceof` widens the SDK's generic parameters to `any`; restore the declared ones.
  if (error instanceof APIError) return classifyApiError(error as APIError);
  return (
    classifyTransportError(error, 'anthropic') ??
    failure('unknown', error instanceof Error ? error.message : String(error), error)
  );
}

function classifyApiError(error: APIError): ProviderError {
  const message = error.apiMessage ?? error.message;
  const kind = kindOf(error, message);
  return new ProviderError({
    kind,
    message: `anthropic${error.status === undefined ? '' : ` ${error.status}`}: ${message}`,
    status: error.status,
    retryAfterMs: kind === 'rate_limit' ? retryAfterFromHeaders(error.headers) : undefined,
    provider: 'anthropic',
    cause: error,
  });
}

function kindOf(error: APIError, message: string): ProviderErrorKind {
  const status = error.status;
  if (error.errorCode !== null && QUOTA_ERROR_CODES.has(error.errorCode)) return 'quota';
  // Older API versions report an empty balance as a 400 invalid_request_error.
  if (/credit balance is too low/i.test(message)) return 'quota';
  if (status === 529) return 'overloaded';
  if (status === 413 || isContextOverflow({ message })) return 'context_overflow';
  const byType = error.type === null ? undefined : KINDS_BY_TYPE[error.type];
  if (byType) return byType;
  if (status === 401 || status === 403) return 'auth';
  if (status === 402) return 'quota';
  if (status === 404) return 'model';
  if (status === 429) return 'rate_limit';
  if (status === 408 || status === 504) return 'timeout';
  if (status !== undefined && status >= 500) return 'overloaded';
  if (status === 400 || status === 422) return 'bad_request';
  return 'unknown';
}

function failure(kind: ProviderErrorKind, message: string, cause: unknown): ProviderError {
  return new ProviderError({
    kind,
    message: `anthropic: ${message}`,
    provider: 'anthropic',
    cause,
  });
}
