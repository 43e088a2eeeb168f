import { APIConnectionTimeoutError, APIError } from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { classifyAnthropicError } from './anthropic-error-classifier.ts';

function httpError(status: number, body: object, headers: Record<string, string> = {}): APIError {
  return APIError.generate(
    status,
    body,
    undefined,
    new Headers({ 'content-type': 'application/json', ...headers }),
  );
}

const errorBody = (type: string, message: string, details?: unknown) => ({
  type: 'error',
  error: { type, message, ...(details ? { details } : {}) },
  request_id: 'req_1',
});

describe('classifyAnthropicError', () => {
  it('treats an empty credit balance as quota, in the old 400 form and as billing_error', () => {
    const legacy = httpError(
      400,
      errorBody(
        'invalid_request_error',
        'Your credit balance is too low to access the Anthropic API.',
      ),
    );
    expect(classifyAnthropicError(legacy)).toMatchObject({ kind: 'quota', retryable: false });
    expect(
      classifyAnthropicError(httpError(402, errorBody('billing_error', 'Payment required'))).kind,
    ).toBe('quota');
  });

  it('treats a spend limit answered with 429 as quota, not a rate limit', () => {
    const error = httpError(
      429,
      errorBody('rate_limit_error', 'Spend limit reached', {
        error_code: 'enforced_spend_limit_reached',
      }),
    );
    expect(classifyAnthropicError(error)).toMatchObject({ kind: 'quota', retryable: false });
  });

  it('reads retry-after on a rate limit', () => {
    const error = httpError(429, errorBody('rate_limit_error', 'Too many requests'), {
      'retry-after': '30',
    });
    expect(classifyAnthropicError(error)).toMatchObject({
      kind: 'rate_limit',
      retryAfterMs: 30_000,
    });
  });

  it.each([
    [529, errorBody('overloaded_error', 'Overloaded'), 'overloaded'],
    [500, errorBody('api_error', 'Internal server error'), 'overloaded'],
    [
      413,
      errorBody('request_too_large', 'Request exceeds the maximum allowed number of bytes.'),
      'context_overflow',
    ],
    [
      403,
      errorBody(
        'permission_error',
        'Your API key does not have permission to use the specified resource.',
      ),
      'auth',
    ],
    [404, errorBody('not_found_error', 'model: claude-9'), 'model'],
    [504, errorBody('timeout_error', 'Request timed out'), 'timeout'],
    [
      400,
      errorBody(
        'invalid_request_error',
        'max_tokens: 999999 > 128000, which is the maximum allowed',
      ),
      'bad_request',
    ],
  ] as const)('classifies HTTP %i as %s', (status, body, kind) => {
    expect(classifyAnthropicError(httpError(status, body)).kind).toBe(kind);
  });

  it('classifies a mid-stream error event (no status) by its type', () => {
    const event = new APIError(
      undefined,
      errorBody('overloaded_error', 'Overloaded'),
      undefined,
      new Headers(),
      'overloaded_error',
    );
    expect(classifyAnthropicError(event)).toMatchObject({ kind: 'overloaded', retryable: true });
  });

  it('classifies an SDK timeout as timeout', () => {
    expect(classifyAnthropicError(new APIConnectionTimeoutError()).kind).toBe('timeout');
  });
});
