import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { capText, scrubSecrets, summarizeArguments } from './tool-call-summary.ts';

describe('capText', () => {
  it('never exceeds the cap, keeps a prefix of the text and never splits a surrogate pair', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 400 }),
        fc.integer({ min: 40, max: 300 }),
        (text, max) => {
          const capped = capText(text, max);
          expect(capped.length).toBeLessThanOrEqual(max);
          if (text.length <= max) {
            expect(capped).toBe(text);
            return;
          }
          const kept = capped.slice(0, capped.indexOf('… ['));
          expect(text.startsWith(kept)).toBe(true);
          expect(capped).toBe(`${kept}… [${text.length - kept.length} more characters cut]`);
          expect(kept).not.toMatch(/[\uD800-\uDBFF]$/);
        },
      ),
    );
  });
});

describe('scrubSecrets', () => {
  it('removes keys, tokens and credentials but keeps ids and ordinary words', () => {
    const text = [
      'key sk-proj-abcdefghijklmnopqrstuv',
      'google AIzaSyA1234567890abcdefghijklmnopqrstu',
      'discord MTIzNDU2Nzg5MDEyMzQ1Njc4.GaBcDe.abcdefghijklmnopqrstuvwxyz0123',
      'memory 7b0d5f3e-2f8e-4d7c-9a8b-0c1d2e3f4a5b',
      'https://example.com/path?api_key=zzz&page=2',
      'a_very_long_identifier_made_only_of_words_here',
    ].join('\n');
    expect(scrubSecrets(text)).toBe(
      [
        'key [redacted]',
        'google [redacted]',
        'discord [redacted]',
        'memory 7b0d5f3e-2f8e-4d7c-9a8b-0c1d2e3f4a5b',
        'https://example.com/path?api_key=[redacted]&page=2',
        'a_very_long_identifier_made_only_of_words_here',
      ].join('\n'),
    );
  });

  it('redacts argument fields named like secrets, at any depth', () => {
    expect(
      summarizeArguments({ headers: { Authorization: 'x', accept: 'y' }, password: 'p' }),
    ).toBe('{"headers":{"Authorization":"[redacted]","accept":"y"},"password":"[redacted]"}');
  });
});
