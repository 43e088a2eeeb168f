import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ThinkTagSplitter, type ThinkSegment } from './think-tag-splitter.ts';

function run(deltas: readonly string[]): { text: string; reasoning: string } {
  const splitter = new ThinkTagSplitter();
  const segments: ThinkSegment[] = [];
  for (const delta of deltas) segments.push(...splitter.push(delta));
  segments.push(...splitter.flush());
  return {
    text: segments
      .filter((segment) => segment.type === 'text')
      .map((segment) => segment.text)
      .join(''),
    reasoning: segments
      .filter((segment) => segment.type === 'reasoning')
      .map((segment) => segment.text)
      .join(''),
  };
}

/** Splits `text` at the given cut points (sorted, deduplicated, within bounds). */
function splitAt(text: string, cuts: readonly number[]): string[] {
  const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
  const pieces: string[] = [];
  let start = 0;
  for (const point of points) {
    pieces.push(text.slice(start, point));
    start = point;
  }
  pieces.push(text.slice(start));
  return pieces;
}

/** True when `output` is `input` with some think tags (and whitespace) deleted, nothing else. */
function isInputWithTagsRemoved(output: string, input: string): boolean {
  const compactOutput = output.replace(/\s/g, '');
  const compactInput = input.replace(/\s/g, '');
  const failed = new Set<string>();
  const matches = (inputIndex: number, outputIndex: number): boolean => {
    if (inputIndex === compactInput.length) return outputIndex === compactOutput.length;
    const key = `${inputIndex}:${outputIndex}`;
    if (failed.has(key)) return false;
    const same =
      compactOutput[outputIndex] === compactInput[inputIndex] &&
      matches(inputIndex + 1, outputIndex + 1);
    const tag = ['<think>', '</think>'].find((candidate) =>
      compactInput.startsWith(candidate, inputIndex),
    );
    const result = same || (tag !== undefined && matches(inputIndex + tag.length, outputIndex));
    if (!result) failed.add(key);
    return result;
  };
  return matches(0, 0);
}

// Streams built from fragments that make tags, near-tags and text likely.
const streamText = fc
  .array(
    fc.constantFrom(
      '<think>',
      '</think>',
      '<thi',
      'nk>',
      '</',
      'think',
      '<',
      '>',
      ' ',
      '\n',
      'a',
      'b c',
      'é',
      '😀',
      '<b>',
    ),
    { maxLength: 30 },
  )
  .map((pieces) => pieces.join(''));

describe('ThinkTagSplitter', () => {
  it('separates an inline think block from the answer', () => {
    expect(run(['<think>The user says hi.</think>\n\nHello!'])).toEqual({
      text: 'Hello!',
      reasoning: 'The user says hi.',
    });
  });

  it('recognises tags split across deltas', () => {
    expect(run(['<thi', 'nk>plan', 'ning</th', 'ink>', '\n', 'Answer'])).toEqual({
      text: 'Answer',
      reasoning: 'planning',
    });
  });

  it('passes text without tags through unchanged, including a lone "<"', () => {
    expect(run(['a < b and ', 'c <', 'b> d'])).toEqual({
      text: 'a < b and c <b> d',
      reasoning: '',
    });
  });

  it('keeps an unclosed think block as reasoning at the end of the stream', () => {
    expect(run(['<think>still thinking'])).toEqual({ text: '', reasoning: 'still thinking' });
  });

  it('releases a held-back partial tag as text when the stream ends', () => {
    expect(run(['Hello <thi'])).toEqual({ text: 'Hello <thi', reasoning: '' });
  });

  it('gives the same text and reasoning however the stream is split', () => {
    fc.assert(
      fc.property(streamText, fc.array(fc.nat(), { maxLength: 12 }), (text, cuts) => {
        expect(run(splitAt(text, cuts))).toEqual(run([text]));
      }),
      { numRuns: 500 },
    );
  });

  it('loses no character: the output is the input minus tags and the blank after a block', () => {
    fc.assert(
      fc.property(streamText, (text) => {
        const splitter = new ThinkTagSplitter();
        const segments = [...splitter.push(text), ...splitter.flush()];
        for (const segment of segments.filter((item) => item.type === 'text')) {
          expect(segment.text).not.toMatch(/<\/?think>/);
        }
        const output = segments.map((segment) => segment.text).join('');
        expect(isInputWithTagsRemoved(output, text)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
