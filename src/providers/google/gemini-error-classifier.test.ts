import { ApiError } from '@google/genai';
import { describe, expect, it } from 'vitest';
import { classifyGeminiError } from './gemini-error-classifier.ts';

/** An HTTP error exactly as the SDK builds it: the status, and the JSON body as the message. */
function httpError(code: number, status: string, message: string, details?: unknown[]): ApiError {
  return new ApiError({
    status: code,
    message: JSON.stringify({ error: { code, message, status, details } }),
  });
}

describe('classifyGeminiError', () => {
  it('recognises an invalid key, which Gemini answers with 400 INVALID_ARGUMENT', () => {
    const error = httpError(400, 'INVALID_ARGUMENT', 'API key not valid.', [
      { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID' },
    ]);
    expect(classifyGeminiError(error)).toMatchObject({ kind: 'auth', retryable: false });
  });

  it('takes the retry delay from RetryInfo', () => {
    const error = httpError(429, 'RESOURCE_EXHAUSTED', 'Quota exceeded', [
      { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '13s' },
    ]);
    expect(classifyGeminiError(error)).toMatchObject({ kind: 'rate_limit', retryAfterMs: 13_000 });
  });

  it('treats an exhausted per-day quota as quota', () => {
    const error = httpError(429, 'RESOURCE_EXHAUSTED', 'Quota exceeded', [
      {
        '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
        violations: [{ quotaId: 'GenerateRequestsPerDayPerProjectPerModel-FreeTier' }],
      },
      { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '40s' },
    ]);
    expect(classifyGeminiError(error)).toMatchObject({
      kind: 'quota',
      retryable: false,
      retryAfterMs: undefined,
    });
  });

  it.each([
    [403, 'PERMISSION_DENIED', 'Permission denied on resource project.', 'auth'],
    [404, 'NOT_FOUND', 'models/gemini-9 is not found for API version v1beta', 'model'],
    [
      400,
      'INVALID_ARGUMENT',
      'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).',
      'context_overflow',
    ],
    [500, 'INTERNAL', 'An internal error has occurred.', 'overloaded'],
    [503, 'UNAVAILABLE', 'The model is overloaded.', 'overloaded'],
    [504, 'DEADLINE_EXCEEDED', 'Deadline expired.', 'timeout'],
    [400, 'FAILED_PRECONDITION', 'User location is not supported for the API use.', 'bad_request'],
  ] as const)('classifies %i %s as %s', (code, status, message, kind) => {
    expect(classifyGeminiError(httpError(code, status, message)).kind).toBe(kind);
  });

  it('parses an error the SDK raised from a mid-stream event', () => {
    const body = {
      error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' },
    };
    const error = new ApiError({
      status: 503,
      message: `got status: UNAVAILABLE. ${JSON.stringify(body)}`,
    });
    expect(classifyGeminiError(error)).toMatchObject({
      kind: 'overloaded',
      message: 'google 503: The model is overloaded.',
    });
  });

  it('classifies transport failures and a corrupt stream as network', () => {
    const refused = new TypeError('fetch failed', {
      cause: Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }),
    });
    expect(classifyGeminiError(refused).kind).toBe('network');
    expect(
      classifyGeminiError(new Error('exception parsing stream chunk {"a": . SyntaxError')).kind,
    ).toBe('network');
    expect(classifyGeminiError(new Error('Incomplete JSON segment at the end')).kind).toBe(
      'network',
    );
  });

  it('classifies a non-JSON gateway error by its status', () => {
    expect(
      classifyGeminiError(new ApiError({ status: 502, message: '<html>Bad Gateway</html>' })).kind,
    ).toBe('overloaded');
  });
});
