import { describe, expect, it } from 'vitest';
import { retryAfterFromDuration, retryAfterFromHeaders } from './retry-after.ts';

describe('retryAfterFromHeaders', () => {
  it('prefers retry-after-ms, then retry-after seconds', () => {
    expect(
      retryAfterFromHeaders(new Headers({ 'retry-after-ms': '250', 'retry-after': '3' })),
    ).toBe(250);
    expect(retryAfterFromHeaders(new Headers({ 'retry-after': '3' }))).toBe(3000);
    expect(retryAfterFromHeaders(new Headers({ 'retry-after': '0.5' }))).toBe(500);
  });

  it('reads an HTTP date relative to now', () => {
    const now = Date.parse('2026-11-20T10:00:00Z');
    const headers = new Headers({ 'retry-after': 'Fri, 20 Nov 2026 10:00:30 GMT' });
    expect(retryAfterFromHeaders(headers, now)).toBe(30_000);
  });

  it('ignores absent, garbled and absurd values', () => {
    expect(retryAfterFromHeaders(undefined)).toBeUndefined();
    expect(retryAfterFromHeaders(new Headers())).toBeUndefined();
    expect(retryAfterFromHeaders(new Headers({ 'retry-after': 'soon' }))).toBeUndefined();
    expect(retryAfterFromHeaders(new Headers({ 'retry-after': '9999999' }))).toBeUndefined();
  });
});

describe('retryAfterFromDuration', () => {
  it('parses protobuf durations', () => {
    expect(retryAfterFromDuration('13s')).toBe(13_000);
    expect(retryAfterFromDuration('1.25s')).toBe(1250);
    expect(retryAfterFromDuration('soon')).toBeUndefined();
    expect(retryAfterFromDuration(undefined)).toBeUndefined();
  });
});
