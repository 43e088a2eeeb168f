import { describe, expect, it } from 'vitest';
import { DeliveryError, ProviderError, SecretError, UserFacingError } from '../../core/errors.ts';
import { describeFailure } from './member-text.ts';

const PROVIDER_BODY =
  '{"error":{"message":"Incorrect API key provided: sk-abc***xyz","type":"invalid_request_error"}}';

describe('describeFailure', () => {
  it('maps every provider error kind to a short localized text with an incident id, never the body', () => {
    for (const kind of [
      'auth',
      'rate_limit',
      'quota',
      'overloaded',
      'network',
      'timeout',
      'model',
      'context_overflow',
      'content_filter',
      'bad_request',
      'unknown',
    ] as const) {
      for (const locale of ['en', 'ja'] as const) {
        const failure = describeFailure(
          new ProviderError({ kind, message: PROVIDER_BODY }),
          locale,
        );
        expect(failure.text).not.toContain('sk-abc');
        expect(failure.text).not.toContain('invalid_request_error');
        expect(failure.text).toContain(failure.incidentId);
        expect(failure.text.length).toBeLessThan(300);
      }
    }
  });

  it('tells members how an admin fixes auth and quota errors', () => {
    expect(describeFailure(new ProviderError({ kind: 'auth', message: 'x' }), 'en').text).toContain(
      '/config apikey',
    );
    expect(
      describeFailure(new ProviderError({ kind: 'quota', message: 'x' }), 'ja').text,
    ).toContain('/config apikey');
  });

  it('offers Retry for transient and fixable failures but not for a safety block', () => {
    expect(
      describeFailure(new ProviderError({ kind: 'rate_limit', message: 'x' }), 'en').retryable,
    ).toBe(true);
    expect(
      describeFailure(new ProviderError({ kind: 'content_filter', message: 'x' }), 'en').retryable,
    ).toBe(false);
    expect(describeFailure(new SecretError('wrong_key', 'x'), 'en').text).toContain(
      '/config apikey',
    );
    const otherVendor = describeFailure(new SecretError('wrong_provider', 'x'), 'ja').text;
    expect(otherVendor).toContain('別のAIプロバイダー');
    expect(otherVendor).toContain('/config apikey');
  });

  it('uses the message of a user-facing error with its parameters, and hides anything else', () => {
    const tooLarge = describeFailure(
      new UserFacingError('error.message_too_large', { tokens: 123 }),
      'en',
    );
    expect(tooLarge.text).toContain('123');
    const crash = describeFailure(
      new TypeError('Cannot read properties of undefined (reading "x")'),
      'en',
    );
    expect(crash.text).not.toContain('Cannot read');
  });

  it('says in both languages that part of the reply did not reach Discord, with a Retry', () => {
    const failure = new DeliveryError('write_failed', 'HTTPError 503 on POST /channels/1/messages');
    const english = describeFailure(failure, 'en');
    expect(english.text).toContain("Discord didn't accept part of my reply");
    expect(english.text).not.toContain('HTTPError');
    expect(english.retryable).toBe(true);
    expect(describeFailure(failure, 'ja').text).toContain('返信の一部');
  });
});
