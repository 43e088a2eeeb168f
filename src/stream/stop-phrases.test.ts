import { describe, expect, it } from 'vitest';
import { createStopPhraseMatcher } from './stop-phrases.ts';

describe('stop phrases', () => {
  const matcher = createStopPhraseMatcher();

  it.each([
    'stop',
    'Stop!',
    'okay stop',
    'please stop',
    'stop please',
    'stop, I get it',
    "ok that's enough",
    'That’s enough.',
    'nevermind',
    'cut it out',
    'knock it off 😅',
    'hold on a sec',
    'wait',
    'やめて',
    'やめてください',
    'ストップ！',
    'もういいよ',
    'ちょっと待って',
    '十分です',
    'ok ストップ',
  ])('%s is a stop on its own', (text) => {
    expect(matcher.isStandalone(text)).toBe(true);
  });

  it.each([
    'wait, what about X?',
    'wait what',
    'stop?',
    'I had to stop at the store',
    'that is fine',
    'nonstop fun',
    'bus stop',
    '十分な説明',
    'ストップウォッチ',
    '',
  ])('%s is not a stop on its own', (text) => {
    expect(matcher.isStandalone(text)).toBe(false);
  });

  it('finds a phrase inside a longer message only at Unicode word boundaries', () => {
    expect(matcher.contains('<@123> wait, what about X?')).toBe(true);
    expect(matcher.contains('ねえ、待ってください')).toBe(true);
    expect(matcher.contains('nonstop stopwatch unstoppable')).toBe(false);
    expect(matcher.contains('十分な説明をして')).toBe(false);
    expect(matcher.contains('ストップウォッチ')).toBe(false);
    expect(matcher.contains('Éstop')).toBe(false);
  });

  it('treats custom phrases as escaped literals, so symbols neither break nor widen the pattern (anchor fault 6)', () => {
    const custom = createStopPhraseMatcher(['c++', 'a.b', '(halt)', '[x]', '\\']);
    expect(custom.contains('I love c++ a lot')).toBe(true);
    expect(custom.contains('cxx')).toBe(false);
    expect(custom.contains('a.b')).toBe(true);
    expect(custom.contains('axb')).toBe(false);
    expect(custom.isStandalone('c++')).toBe(true);
    expect(custom.isStandalone('halt')).toBe(true);
  });
});
