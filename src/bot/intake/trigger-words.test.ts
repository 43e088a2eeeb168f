import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TriggerWordMatcher } from './trigger-words.ts';

describe('TriggerWordMatcher', () => {
  it('matches whole words only, case-insensitively', () => {
    const matcher = new TriggerWordMatcher(['Tomo']);
    expect(matcher.matches('hey tomo, how are you')).toBe(true);
    expect(matcher.matches('TOMO!')).toBe(true);
    expect(matcher.matches('tomorrow is fine')).toBe(false);
    expect(matcher.matches('atomo')).toBe(false);
  });

  it('treats regex characters as literal text (c++ does not break matching)', () => {
    const matcher = new TriggerWordMatcher(['c++', '.*', '(hi']);
    expect(matcher.matches('I love c++ a lot')).toBe(true);
    expect(matcher.matches('I love c a lot')).toBe(false);
    expect(matcher.matches('say .* now')).toBe(true);
    expect(matcher.matches('anything at all')).toBe(false);
    expect(matcher.matches('(hi there')).toBe(true);
  });

  it('matches Japanese words inside running text without spaces', () => {
    const matcher = new TriggerWordMatcher(['ともちゃん']);
    expect(matcher.matches('ねえともちゃん、元気？')).toBe(true);
    expect(matcher.matches('ともだち')).toBe(false);
  });

  it('matches full-width spellings after normalization', () => {
    expect(new TriggerWordMatcher(['tomo']).matches('ｔｏｍｏ です')).toBe(true);
  });

  it('never matches with no words, and never throws on any word list', () => {
    expect(new TriggerWordMatcher([]).matches('anything')).toBe(false);
    fc.assert(
      fc.property(fc.array(fc.string()), fc.string(), (words, text) => {
        const matcher = new TriggerWordMatcher(words);
        expect(typeof matcher.matches(text)).toBe('boolean');
      }),
    );
  });

  it('always finds a word in a text made of that word alone', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }).filter((word) => word.trim() !== ''),
        (word) => {
          expect(new TriggerWordMatcher([word]).matches(word)).toBe(true);
        },
      ),
    );
  });
});
