import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REDACTED, redactSecretFields } from './secret-fields.ts';

const SECRET_NAMES = [
  'token',
  'apiKey',
  'api_key',
  'password',
  'authorization',
  'Authorization',
  'encryptionKey',
  'x-api-key',
  'x-goog-api-key',
  'TOKEN',
];

/** Every value found under a secret-named field, however deep. */
function secretValues(value: unknown): unknown[] {
  if (typeof value !== 'object' || value === null) return [];
  if (Array.isArray(value)) return (value as unknown[]).flatMap((item) => secretValues(item));
  return Object.entries(value as Record<string, unknown>).flatMap(([key, field]): unknown[] =>
    SECRET_NAMES.map((name) => name.toLowerCase()).includes(key.toLowerCase())
      ? [field]
      : secretValues(field),
  );
}

const logged = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.string(),
    fc.integer(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 3 }),
    tie('object'),
  ),
  object: fc.dictionary(
    fc.oneof(fc.constantFrom(...SECRET_NAMES), fc.constantFrom('headers', 'config', 'id', 'count')),
    tie('value'),
    { maxKeys: 4 },
  ),
})).object;

describe('redactSecretFields', () => {
  it('replaces the value of every secret-named field, in nested objects and arrays', () => {
    const line = {
      token: 'discord-token',
      request: { headers: { Authorization: 'Bearer sk-1', 'x-api-key': 'k', accept: 'json' } },
      providers: [{ name: 'openai', apiKey: 'sk-2' }],
      inputTokens: 1200,
    };
    expect(redactSecretFields(line)).toEqual({
      token: REDACTED,
      request: { headers: { Authorization: REDACTED, 'x-api-key': REDACTED, accept: 'json' } },
      providers: [{ name: 'openai', apiKey: REDACTED }],
      inputTokens: 1200,
    });
  });

  it('never changes the object it is given, and returns one without secrets as it is', () => {
    const line = { headers: { authorization: 'Bearer sk-1' }, turnId: 't1' };
    const redacted = redactSecretFields(line);
    expect(line.headers.authorization).toBe('Bearer sk-1');
    expect(redacted).not.toBe(line);
    const plain = { turnId: 't1', metrics: { durationMs: 12, tools: [] } };
    expect(redactSecretFields(plain)).toBe(plain);
  });

  it('leaves errors and class instances to their serializers', () => {
    const error = Object.assign(new Error('401'), { token: 'kept for the err serializer' });
    const line = { err: error, at: new Date(0) };
    expect(redactSecretFields(line)).toBe(line);
  });

  it('leaves no value under a secret-named field and keeps every other field (property)', () => {
    fc.assert(
      fc.property(logged, (object) => {
        const before = JSON.stringify(object);
        const redacted = redactSecretFields(object);
        expect(JSON.stringify(object)).toBe(before);
        for (const value of secretValues(redacted))
          expect(value === REDACTED || value === null).toBe(true);
        expect(secretValues(redacted)).toHaveLength(secretValues(object).length);
      }),
      { numRuns: 300 },
    );
  });
});
