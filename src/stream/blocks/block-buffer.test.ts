import { describe, expect, it } from 'vitest';
import { SemanticBlockBuffer, type Block, type BlockPolicy } from './block-buffer.ts';
import { renderFenced } from './fence.ts';

const PARAGRAPHS: BlockPolicy = {
  minimumLength: { paragraph: 0, line: 800, sentence: 1200 },
  holdCap: 1800,
};
const SENTENCES: BlockPolicy = {
  minimumLength: { paragraph: 0, line: 0, sentence: 0 },
  holdCap: 1800,
};

/** Feeds `text` one character at a time; answers the blocks that came out before `finish`. */
function streamed(text: string, policy: BlockPolicy): { early: Block[]; all: Block[] } {
  const buffer = new SemanticBlockBuffer(policy);
  const early: Block[] = [];
  for (const character of text) early.push(...buffer.push(character));
  return { early, all: [...early, ...buffer.finish()] };
}

const texts = (blocks: Block[]): string[] => blocks.map((block) => renderFenced(block));

describe('SemanticBlockBuffer', () => {
  it('ends a block at each paragraph as soon as the blank line arrives', () => {
    const buffer = new SemanticBlockBuffer(PARAGRAPHS);
    expect(buffer.push('First paragraph. Still first.\n')).toEqual([]);
    expect(texts([...buffer.push('\nSecond')])).toEqual(['First paragraph. Still first.']);
    expect(texts([...buffer.finish()])).toEqual(['Second']);
  });

  it('ends blocks at sentences and lines in sentence mode, Japanese included', () => {
    const { all } = streamed(
      'Hi there! How are you?\nFine. こんにちは。元気ですか？「はい。」と言った。',
      SENTENCES,
    );
    expect(texts(all)).toEqual([
      'Hi there!',
      'How are you?',
      'Fine.',
      'こんにちは。',
      '元気ですか？',
      '「はい。」と言った。',
    ]);
  });

  it('does not take abbreviations, initials, decimals or list numbers for sentence ends', () => {
    const { all } = streamed(
      'Dr. Smith met J. Doe, e.g. at 3.5 pm. Then left.\n1. First item',
      SENTENCES,
    );
    expect(texts(all)).toEqual([
      'Dr. Smith met J. Doe, e.g. at 3.5 pm.',
      'Then left.',
      '1. First item',
    ]);
  });

  it.each([
    ['a code block', 'Look:\n```ts\nconst a = 1;\n\nconst b = 2.\n```'],
    ['inline code', 'Run `make. all` now. Done.'],
    ['a quote', 'He said "stop. now" and left. Ok.'],
    ['Japanese quotes', '彼は「待って。ください」と言った。はい。'],
    ['curly quotes', 'She said “go. now” then. Ok.'],
    ['parentheses', 'This (see above. really) matters. Ok.'],
    ['bold', 'This is **very. important** stuff. Ok.'],
    ['a spoiler', 'The end: ||he dies. sadly|| indeed. Ok.'],
    ['strike', 'Not ~~this. one~~ but that. Ok.'],
    ['a markdown link', 'See [the docs. here](https://example.com/a.b) now. Ok.'],
  ])('never ends a block inside %s', (_name, text) => {
    const { all } = streamed(text, SENTENCES);
    // Every block is a whole construct: its delimiters are balanced within it.
    for (const block of texts(all)) {
      expect((block.match(/```/g)?.length ?? 0) % 2).toBe(0);
      for (const [open, close] of [
        ['(', ')'],
        ['「', '」'],
        ['“', '”'],
        ['[', ']'],
      ] as const) {
        expect(block.split(open).length).toBe(block.split(close).length);
      }
      for (const marker of ['**', '||', '~~', '"'])
        expect((block.split(marker).length - 1) % 2).toBe(0);
    }
    expect(all.length).toBeGreaterThan(1);
  });

  it('never cuts inside a URL, a mention, a custom emoji or a timestamp', () => {
    const tokens = [
      'https://example.com/a.b?c=d. e',
      '<@123456789012345678>',
      '<a:wave:123456789012345678>',
      '<t:1700000000:R>',
    ];
    const { all } = streamed(`Hi. ${tokens.join(' Then. ')} End.`, SENTENCES);
    for (const token of tokens.slice(1))
      expect(texts(all).some((block) => block.includes(token))).toBe(true);
    expect(texts(all).some((block) => block.includes('https://example.com/a.b?c=d.'))).toBe(true);
  });

  it('lets emoticons and list labels open nothing, so they never stall the stream', () => {
    const { early } = streamed(
      'Nice :) really. Also ;) and :-) fine. 1) first. a) second.\n\nNext',
      SENTENCES,
    );
    expect(texts(early)).toEqual([
      'Nice :) really.',
      'Also ;) and :-) fine.',
      '1) first.',
      'a) second.',
    ]);
  });

  it('does not take a sad face for an opening bracket', () => {
    const { early } = streamed('Oh no :( that hurts. Next one.', SENTENCES);
    expect(texts(early)).toEqual(['Oh no :( that hurts.']);
  });

  it('ends an unmatched hold at the end of its paragraph', () => {
    const { early } = streamed(
      'An open (bracket and "quote. Still held.\n\nFree again. Yes.',
      SENTENCES,
    );
    expect(texts(early)).toEqual(['An open (bracket and "quote. Still held.', 'Free again.']);
  });

  it('cuts a hold that outgrows the cap at its best safe point, well before the end', () => {
    const policy: BlockPolicy = {
      minimumLength: { paragraph: 0, line: 0, sentence: 0 },
      holdCap: 200,
    };
    const held = `(${Array.from({ length: 40 }, (_, index) => `Sentence ${index}.`).join(' ')})`;
    const { early } = streamed(`${held}\n\nTail.`, policy);
    expect(early.map((block) => block.forced)).toEqual([true, true, false]);
    for (const block of early) {
      expect(block.text.length).toBeLessThanOrEqual(200);
      expect(renderFenced(block)).toMatch(/\.\)?$/);
    }
    expect(early.slice(0, 2).map((block) => block.end)).toEqual(['sentence', 'sentence']);
  });

  it('cuts an oversized code block at a line and reopens it with its language', () => {
    const policy: BlockPolicy = {
      minimumLength: { paragraph: 0, line: 800, sentence: 1200 },
      holdCap: 150,
    };
    const code = Array.from({ length: 20 }, (_, index) => `let value${index} = ${index};`).join(
      '\n',
    );
    const { all } = streamed(`\`\`\`rust\n${code}\n\`\`\`\nAfter.`, policy);
    const rendered = texts(all);
    expect(rendered.length).toBeGreaterThan(2);
    for (const block of rendered.slice(0, -1)) {
      expect(block.startsWith('```rust\n')).toBe(true);
      expect(block.endsWith('\n```')).toBe(true);
    }
    expect(rendered.join('\n').replace(/\n?```(rust)?\n?/g, '\n')).toContain(
      code.split('\n').slice(3, 8).join('\n'),
    );
  });

  it('cuts text without any whitespace at grapheme boundaries', () => {
    const policy: BlockPolicy = {
      minimumLength: { paragraph: 0, line: 0, sentence: 0 },
      holdCap: 130,
    };
    const family = '👨‍👩‍👧‍👦';
    const text = family.repeat(40);
    const { all } = streamed(text, policy);
    expect(all.length).toBeGreaterThan(1);
    expect(all.map((block) => block.text).join('')).toBe(text);
    for (const block of all) expect(block.text.length % family.length).toBe(0);
  });

  it('delivers the whole tail at the end, also after an empty last delta', () => {
    const buffer = new SemanticBlockBuffer(PARAGRAPHS);
    const blocks = [...buffer.push('Intro.\n\nThe last words'), ...buffer.push('')];
    expect(texts(blocks)).toEqual(['Intro.']);
    expect(texts([...buffer.finish()])).toEqual(['The last words']);
    expect(buffer.finish()).toEqual([]);
  });

  it('closes a code block the model left open at the end', () => {
    const { all } = streamed('Code:\n```py\nprint(1)', PARAGRAPHS);
    expect(texts(all)).toEqual(['Code:\n```py\nprint(1)\n```']);
  });

  it('gives back exactly the input when its blocks are concatenated', () => {
    const text = 'A (b. c) d.\n\n```\nx\n\ny\n```\n\n**e. f** g! 「h。」i\n\n\nj';
    for (const policy of [PARAGRAPHS, SENTENCES]) {
      expect(
        streamed(text, policy)
          .all.map((block) => block.text)
          .join(''),
      ).toBe(text);
    }
  });

  it('previews only scanned text, never half a token', () => {
    const buffer = new SemanticBlockBuffer(PARAGRAPHS);
    buffer.push('Hello <@1234');
    expect(buffer.preview().text).toBe('Hello ');
    buffer.push('56789012345678> there');
    expect(buffer.preview().text).toBe('Hello <@123456789012345678> there');
  });
});
