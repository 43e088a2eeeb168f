import { describe, expect, it } from 'vitest';
import { discordTokenLength, startsUrl, urlExtent } from './markdown-tokens.ts';

describe('discordTokenLength', () => {
  it.each([
    '<@123456789012345678>',
    '<@!123456789012345678>',
    '<@&123456789012345678>',
    '<#123456789012345678>',
    '<:smile:123456789012345678>',
    '<a:wave:123456789012345678>',
    '<t:1700000000>',
    '<t:1700000000:R>',
    '</ask question:123456789012345678>',
    '<id:customize>',
  ])('recognises %s whole', (token) => {
    expect(discordTokenLength(`${token} after`, 0, true)).toBe(token.length);
  });

  it('answers incomplete while a token may still be arriving, and no token once it cannot be one', () => {
    expect(discordTokenLength('<@1234', 0, false)).toBe('incomplete');
    expect(discordTokenLength('<', 0, false)).toBe('incomplete');
    expect(discordTokenLength('<@1234', 0, true)).toBeUndefined();
    expect(discordTokenLength('a < b and c > d', 2, false)).toBeUndefined();
    expect(discordTokenLength('<@12 34>', 0, false)).toBeUndefined();
    expect(discordTokenLength('<t:12:X>', 0, true)).toBeUndefined();
  });
});

describe('urlExtent', () => {
  const extent = (text: string, final = true): ReturnType<typeof urlExtent> =>
    urlExtent(text, { start: 0, final, maxLength: 500 });

  it('leaves trailing sentence punctuation and unopened brackets out of the URL', () => {
    expect(extent('https://example.com/a. Next')).toEqual({ kind: 'url', length: 21 });
    expect(extent('https://example.com/a)')).toEqual({ kind: 'url', length: 21 });
    expect(extent('https://en.wikipedia.org/wiki/Rust_(language) ok')).toEqual({
      kind: 'url',
      length: 45,
    });
    expect(extent('https://example.com/**')).toEqual({ kind: 'url', length: 20 });
  });

  it('waits for more text while the URL may continue, and gives up past its maximum length', () => {
    expect(extent('https://example.com/pa', false)).toEqual({ kind: 'incomplete' });
    expect(
      urlExtent(`https://${'a'.repeat(600)}`, { start: 0, final: false, maxLength: 500 }),
    ).toEqual({
      kind: 'too-long',
    });
  });

  it('starts only at a scheme on a word boundary', () => {
    expect(startsUrl('see https://x.y', 4)).toBe(true);
    expect(startsUrl('seehttps://x.y', 3)).toBe(false);
    expect(startsUrl('HTTP://X.Y', 0)).toBe(true);
    expect(startsUrl('http:/x', 0)).toBe(false);
  });
});
