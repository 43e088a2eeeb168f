import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import { describe, expect, it } from 'vitest';
import { classifyOpenAIError } from './openai-error-classifier.ts';

/** An HTTP error exactly as the SDK builds it from a response. */
function httpError(status: number, body: object, headers: Record<string, string> = {}): APIError {
  return APIError.generate(
    status,
    body,
    undefined,
    new Headers({ 'content-type': 'application/json', ...headers }),
  );
}

const errorBody = (
  message: string,
  code: string | null = null,
  type = 'invalid_request_error',
) => ({
  error: { message, type, param: null, code },
});

describe('classifyOpenAIError', () => {
  it('treats insufficient_quota as quota, not a rate limit to wait out', () => {
    const error = classifyOpenAIError(
      httpError(
        429,
        errorBody('You exceeded your current quota.', 'insufficient_quota', 'insufficient_quota'),
      ),
    );
    expect(error).toMatchObject({ kind: 'quota', retryable: false, status: 429 });
  });

  it('reads retry-after-ms before retry-after', () => {
    const limited = (headers: Record<string, string>) =>
      classifyOpenAIError(
        httpError(429, errorBody('Rate limit reached', 'rate_limit_exceeded'), headers),
      );
    expect(limited({ 'retry-after-ms': '1500', 'retry-after': '9' }).retryAfterMs).toBe(1500);
    expect(limited({ 'retry-after': '2' }).retryAfterMs).toBe(2000);
    expect(limited({})).toMatchObject({
      kind: 'rate_limit',
      retryable: true,
      retryAfterMs: undefined,
    });
  });

  it.each([
    [401, errorBody('Incorrect API key provided', 'invalid_api_key'), 'auth'],
    [
      403,
      errorBody(
        'Country, region, or territory not supported',
        'unsupported_country_region_territory',
      ),
      'auth',
    ],
    [404, { error: { message: 'model "llama9" not found, try pulling it first' } }, 'model'],
    [
      400,
      errorBody('the request exceeds the available context size, try increasing it'),
      'context_overflow',
    ],
    [413, errorBody('Request too large for gpt-4o'), 'context_overflow'],
    [
      400,
      errorBody(
        'The response was filtered due to the prompt triggering content management policy.',
        'content_filter',
      ),
      'content_filter',
    ],
    [
      400,
      errorBody("Unsupported parameter: 'temperature'", 'unsupported_parameter'),
      'bad_request',
    ],
    [
      500,
      errorBody('The server had an error while processing your request.', null, 'server_error'),
      'overloaded',
    ],
    [502, errorBody('Bad gateway.', null, 'server_error'), 'overloaded'],
    [504, errorBody('Gateway timeout.', null, 'server_error'), 'timeout'],
  ] as const)('classifies HTTP %i (%j) as %s', (status, body, kind) => {
    expect(classifyOpenAIError(httpError(status, body)).kind).toBe(kind);
  });

  it('classifies an error event sent mid-stream (no status) by its type', () => {
    const midStream = new APIError(
      undefined,
      { message: 'The server had an error', type: 'server_error' },
      undefined,
      new Headers(),
    );
    expect(classifyOpenAIError(midStream)).toMatchObject({
      kind: 'overloaded',
      retryable: true,
      status: undefined,
    });
  });

  it('classifies connection failures as network and SDK timeouts as timeout', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:11434'), {
      code: 'ECONNREFUSED',
    });
    expect(classifyOpenAIError(new APIConnectionError({ cause: refused })).kind).toBe('network');
    expect(classifyOpenAIError(new APIConnectionTimeoutError()).kind).toBe('timeout');
  });

  it('classifies a corrupt stream as network and anything unrecognised as unknown', () => {
    expect(classifyOpenAIError(new SyntaxError('Unexpected token')).kind).toBe('network');
    expect(classifyOpenAIError(new Error('something odd'))).toMatchObject({
      kind: 'unknown',
      retryable: false,
    });
  });
});
