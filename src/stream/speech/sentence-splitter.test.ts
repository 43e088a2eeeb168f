import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SentenceSplitter, speakable } from './sentence-splitter.ts';

function splitAll(pieces: readonly string[]): string[] {
  const splitter = new SentenceSplitter();
  const sentences = pieces.flatMap((piece) => splitter.push(piece));
  const rest = splitter.end();
  return rest === undefined ? sentences : [...sentences, rest];
}

describe('SentenceSplitter', () => {
  it('gives each sentence as soon as the next one begins', () => {
    const splitter = new SentenceSplitter();
    expect(splitter.push('Hello there')).toEqual([]);
    expect(splitter.push('! How are')).toEqual(['Hello there!']);
    expect(splitter.push(' you? I am fine')).toEqual(['How are you?']);
    expect(splitter.end()).toBe('I am fine');
  });

  it('cuts Japanese at 。！？ with no space after them', () => {
    expect(splitAll(['こんにちは。今日は', 'いい天気ですね！散歩に行きましょうか？'])).toEqual([
      'こんにちは。',
      '今日はいい天気ですね！',
      '散歩に行きましょうか？',
    ]);
  });

  it('ends a sentence at a line break after a list item or heading, not after a word', () => {
    expect(splitAll(['## Shopping list\n- two apples\n- milk and bread\nThat is all'])).toEqual([
      'Shopping list',
      'two apples milk and bread',
      'That is all',
    ]);
  });

  it('does not read code blocks aloud', () => {
    expect(splitAll(['Run this:\n```sh\nnpm ci. npm test.\n```\nThen it works.'])).toEqual([
      'Run this:',
      'Then it works.',
    ]);
  });

  it('cuts a sentence that never ends at a space once it is long', () => {
    const sentences = splitAll([`${'word '.repeat(200)}`]);
    expect(sentences.length).toBeGreaterThan(1);
    expect(sentences.every((sentence) => sentence.length <= 400)).toBe(true);
  });

  it('speaks every word of the reply once, in order, however the stream is cut', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('Hi', 'there', 'friend.', 'Yes!', 'ok?', 'なるほど。', '\n'), {
          maxLength: 40,
        }),
        fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 10 }),
        (words, cuts) => {
          const text = words.join(' ');
          const pieces: string[] = [];
          for (let index = 0, cut = 0; index < text.length; cut += 1) {
            const size = cuts[cut % cuts.length] ?? 1;
            pieces.push(text.slice(index, index + size));
            index += size;
          }
          const spoken = splitAll(pieces).join(' ').replace(/\s+/g, '');
          expect(spoken).toBe(speakable(text).replace(/\s+/g, ''));
        },
      ),
    );
  });
});

describe('speakable', () => {
  it('keeps link text and drops URLs and markdown marks', () => {
    expect(speakable('See **[the docs](https://example.com/x)** or <https://a.b/c> `now`')).toBe(
      'See the docs or now',
    );
  });
});
