import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_STOP_LEXICON, DEFAULT_STOP_PHRASES } from './stop-lexicon.ts';
import { createStopPhraseMatcher, normalizeForStop } from './stop-phrases.ts';

const ADDRESS = { addressForms: ['@Tomodachi', 'tomo'] };

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
    "that's enough, thanks",
    'nevermind',
    'cut it out',
    'knock it off 😅',
    'hold on a sec',
    'wait',
    'stooop',
    'can you stop?',
    'やめて',
    'やめてください',
    'ストップ！',
    'ｽﾄｯﾌﾟ',
    'もういいよ',
    'ちょっと待って',
    '止めてください',
    '十分です',
    'やめてくれる？',
    'ok ストップ',
  ])('%s is a stop on its own', (text) => {
    expect(matcher.isStandalone(text)).toBe(true);
  });

  it.each([
    'wait, what about X?',
    'wait what',
    'stop?',
    'how do I cancel my order?',
    'stop sending me emails is what he said',
    'I had to stop at the store',
    'that is fine',
    'nonstop fun',
    'bus stop',
    'can you stop using emojis?',
    '十分な説明',
    'ストップウォッチ',
    '注文をキャンセルしたい',
    '止めてもいいですか？',
    '',
    '😅',
  ])('%s is not a stop', (text) => {
    expect(matcher.isStandalone(text)).toBe(false);
  });

  it('lets the message name the bot, but not someone else', () => {
    expect(matcher.isStandalone('@Tomodachi stop please', ADDRESS)).toBe(true);
    expect(matcher.isStandalone('tomo, that’s enough', ADDRESS)).toBe(true);
    expect(matcher.isStandalone('stop @Tomodachi', ADDRESS)).toBe(true);
    expect(matcher.isStandalone('@Tomodachi stop')).toBe(false);
    expect(matcher.isStandalone('@Bob stop', ADDRESS)).toBe(false);
    expect(matcher.isStandalone('<@123456789012345678> stop', ADDRESS)).toBe(false);
    expect(matcher.isStandalone('@Tomodachi how do I cancel my order?', ADDRESS)).toBe(false);
  });

  it('tells whom a stop names among those on stage, and names none for a plain stop', () => {
    const stage = {
      ...ADDRESS,
      addressees: [
        { id: 'alice', names: ['Alice'] },
        { id: 'bob', names: ['Bob'] },
        { id: 'arisu', names: ['アリス'] },
        { id: 'plus', names: ['C++'] },
      ],
    };
    expect(matcher.stopOf('Alice, stop', stage)).toEqual({ named: ['alice'] });
    expect(matcher.stopOf('okay Alice, that’s enough!', stage)).toEqual({ named: ['alice'] });
    expect(matcher.stopOf('stop it, Bob', stage)).toEqual({ named: ['bob'] });
    expect(matcher.stopOf('Bob stop Alice stop', stage)).toEqual({ named: ['alice', 'bob'] });
    expect(matcher.stopOf('アリス、止めて', stage)).toEqual({ named: ['arisu'] });
    expect(matcher.stopOf('アリス止めてください', stage)).toEqual({ named: ['arisu'] });
    expect(matcher.stopOf('c++ stop', stage)).toEqual({ named: ['plus'] });
    expect(matcher.stopOf('stop', stage)).toEqual({ named: [] });
    expect(matcher.stopOf('@Tomodachi stop', stage)).toEqual({ named: [] });
    expect(matcher.stopOf('Alice, how do I stop the music?', stage)).toBeUndefined();
    expect(matcher.stopOf('Cara, stop', stage)).toBeUndefined();
    expect(matcher.stopOf('Alice, stop')).toBeUndefined();
  });

  it('treats custom phrases as literals, so symbols neither break nor widen anything', () => {
    const custom = createStopPhraseMatcher(['c++', 'a.b', '(halt)', '[x]', '\\', '.*']);
    expect(custom.isStandalone('c++')).toBe(true);
    expect(custom.isStandalone('halt please')).toBe(true);
    expect(custom.isStandalone('a.b')).toBe(true);
    expect(custom.isStandalone('axb')).toBe(false);
    expect(custom.isStandalone('cxx')).toBe(false);
    expect(custom.isStandalone('anything at all')).toBe(false);
  });

  it('normalises messages and lexicon alike', () => {
    expect(normalizeForStop('Okay, STOP!! 😅')).toBe('okay stop');
    expect(normalizeForStop('ストップー！')).toBe(normalizeForStop('すとっぷ'));
    expect(normalizeForStop('That’s')).toBe(normalizeForStop("that's"));
  });
});

describe('stop phrases, properties', () => {
  const matcher = createStopPhraseMatcher();
  const english = DEFAULT_STOP_PHRASES.filter((phrase) => /^[\x20-\x7E]+$/.test(phrase));
  const phrase = fc.constantFrom(...DEFAULT_STOP_PHRASES);
  const lead = fc.constantFrom(...DEFAULT_STOP_LEXICON.leading, ...DEFAULT_STOP_LEXICON.anywhere);
  const tail = fc.constantFrom(...DEFAULT_STOP_LEXICON.trailing, ...DEFAULT_STOP_LEXICON.anywhere);
  const decoration = fc.constantFrom('', '!', '.', '!!', '…', ' 😅', ' 🙏', ' :)', '！', '。');
  const casing = fc.constantFrom(
    (text: string) => text,
    (text: string) => text.toUpperCase(),
    (text: string) => (text[0]?.toUpperCase() ?? '') + text.slice(1),
  );
  /** Words no stop is made of: any of them turns a stop into a message to answer. */
  const contentWord = fc.constantFrom(
    'my order',
    'what about the second one',
    'sending me emails',
    'and tell me about Rust',
    'the timer',
    '説明して',
    'の使い方',
    'Bob',
  );

  it('a stop phrase with small words around it, in any case and punctuation, is a stop', () => {
    fc.assert(
      fc.property(
        fc.array(lead, { maxLength: 2 }),
        phrase,
        fc.array(tail, { maxLength: 2 }),
        decoration,
        casing,
        fc.boolean(),
        (leads, stop, tails, end, recase, addressed) => {
          const words = [...leads, stop, ...tails].join(', ');
          const text = `${addressed ? '@Tomodachi ' : ''}${recase(words)}${end}`;
          expect(matcher.isStandalone(text, ADDRESS)).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('one content word anywhere makes it a message, whatever else it holds', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(phrase, lead, tail), { minLength: 1, maxLength: 4 }),
        contentWord,
        fc.nat(),
        (words, content, at) => {
          const all = [...words];
          all.splice(at % (all.length + 1), 0, content);
          expect(matcher.isStandalone(all.join(' '), ADDRESS)).toBe(false);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('a question is never a stop unless it is a request ("can you stop?")', () => {
    fc.assert(
      fc.property(
        fc.array(lead, { maxLength: 2 }),
        fc.constantFrom(...english),
        fc.array(fc.constantFrom(...DEFAULT_STOP_LEXICON.trailing), { maxLength: 2 }),
        (leads, stop, tails) => {
          const text = `${[...leads, stop, ...tails].join(' ')}?`;
          const isRequest = leads.some((word) => /^(can|could|would|will) /.test(word));
          expect(matcher.isStandalone(text)).toBe(isRequest);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('never throws and answers a boolean for any text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), (text) => {
        expect(typeof matcher.isStandalone(text, ADDRESS)).toBe('boolean');
      }),
      { numRuns: 300 },
    );
  });
});
