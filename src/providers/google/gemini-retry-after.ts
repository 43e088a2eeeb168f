import { ProviderError } from '../../core/errors.ts';
import { retryAfterFromHeaders } from '../retry-after.ts';

/**
 * Google's SDK turns an error response into an ApiError that keeps the body but drops the
 * headers, so the HTTP `Retry-After` a 429 or 503 carries would be lost. One instance per
 * call: its `fetch` (handed to that request's `httpOptions`) notes the header of an error
 * response, and `apply` gives it to the classified error when the body had no RetryInfo.
 */
export class GeminiRetryAfter {
  readonly #fetch: typeof fetch;
  #retryAfterMs: number | undefined;

  constructor(transport: typeof fetch = globalThis.fetch) {
    this.#fetch = transport;
  }

  readonly fetch = async (
    input: Parameters<typeof fetch>[0],
    init?: Parameters<typeof fetch>[1],
  ): Promise<Response> => {
    const response = await this.#fetch(input, init);
    if (!response.ok) this.#retryAfterMs = retryAfterFromHeaders(response.headers);
    return response;
  };

  apply(error: ProviderError): ProviderError {
    const retryAfterMs = this.#retryAfterMs;
    if (retryAfterMs === undefined || error.retryAfterMs !== undefined || !error.retryable) {
      return error;
    }
    return new ProviderError({
      kind: error.kind,
      message: error.message,
      retryable: error.retryable,
      retryAfterMs,
      status: error.status,
      provider: error.provider,
      cause: error.cause,
    });
  }
}
