import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { ProviderError, type ProviderErrorKind } from '../../core/errors.ts';
import { retryAfterFromHeaders } from '../retry-after.ts';
import { classifyTransportError } from '../transport-error.ts';
import { openAIErrorKind, stringOrUndefined } from './openai-error-kind.ts';

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
  const kind = openAIErrorKind({ status, code, type, message });
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
