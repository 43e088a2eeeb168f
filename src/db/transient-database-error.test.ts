import { DrizzleQueryError } from 'drizzle-orm/errors';
import { describe, expect, it } from 'vitest';
import { isTransientDatabaseError } from './transient-database-error.ts';

function withCode(code: string, message = 'failed'): Error {
  return Object.assign(new Error(message), { code });
}

describe('isTransientDatabaseError', () => {
  it.each([
    ['a refused connection', withCode('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432')],
    ['a reset connection', withCode('ECONNRESET')],
    ['an administrator shutdown (pg_ctl stop -m fast)', withCode('57P01')],
    ['a server still starting', withCode('57P03', 'the database system is starting up')],
    ['a connection exception (class 08)', withCode('08006')],
    ['a connection never made (08001)', withCode('08001')],
    ['a lost connection', new Error('Connection terminated unexpectedly')],
    ['a pool that timed out connecting', new Error('timeout exceeded when trying to connect')],
    [
      'a dual-stack connect refused on every address',
      new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')], 'connect failed'),
    ],
    [
      'a driver error wrapped by drizzle',
      new DrizzleQueryError('update "x" set …', [], withCode('57P01')),
    ],
  ])('counts %s as transient', (_name, error) => {
    expect(isTransientDatabaseError(error)).toBe(true);
  });

  it.each([
    ['a unique violation', withCode('23505')],
    ['a syntax error', withCode('42601')],
    ['an undefined table', withCode('42P01')],
    [
      'a check violation wrapped by drizzle',
      new DrizzleQueryError('insert', [], withCode('23514')),
    ],
    ['a closed embedded database', new Error('PGlite is closed')],
    [
      'a message that merely mentions a connection',
      new Error('Connection terminated unexpectedly, said the user'),
    ],
    ['not an error at all', 'ECONNREFUSED'],
    ['nothing', undefined],
  ])('does not count %s as transient', (_name, error) => {
    expect(isTransientDatabaseError(error)).toBe(false);
  });

  it('does not loop on a cause chain that points back at itself', () => {
    const error = new Error('outer') as Error & { cause?: unknown };
    error.cause = error;
    expect(isTransientDatabaseError(error)).toBe(false);
  });
});
