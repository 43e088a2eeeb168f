import { discordTokenLength, hasUrlScheme, startsUrl, urlExtent } from './markdown-tokens.ts';

/**
 * Placeholder protection: every span a text transform must not touch (code, URLs, Discord
 * tokens, markdown markers) is swapped for a private-use placeholder before the transform and
 * swapped back after it, so those spans come out byte-identical whatever the transform does.
 */

export type ProtectedKind = 'code' | 'url' | 'discord' | 'markdown' | 'placeholder';

export interface ProtectedSpan {
  kind: ProtectedKind;
  text: string;
}

export interface ProtectedText {
  /** The text with each protected span replaced by `\uE000<index>\uE001`. */
  masked: string;
  spans: readonly ProtectedSpan[];
}

const OPEN = '\uE000';
const CLOSE = '\uE001';
const PLACEHOLDER = /\uE000(\d+)\uE001/g;
/** A placeholder at the end of a string (used to look behind trailing markdown). */
export const TRAILING_PLACEHOLDER = /\uE000(\d+)\uE001$/;

/** Markdown markers that only mean something at the start of a line (after indentation). */
const LINE_START_MARKER = /[ \t]*(?:#{1,6} |-# |>>> |> |[-*+] |\d{1,9}[.)] )/y;
const EMPHASIS_CHARACTERS = new Set(['*', '_', '~', '|']);

export function protectSpans(text: string): ProtectedText {
  const spans: ProtectedSpan[] = [];
  const pieces: string[] = [];
  let copiedUpTo = 0;
  const protect = (start: number, end: number, kind: ProtectedKind): number => {
    pieces.push(text.slice(copiedUpTo, start), `${OPEN}${spans.length}${CLOSE}`);
    spans.push({ kind, text: text.slice(start, end) });
    copiedUpTo = end;
    return end;
  };

  let index = 0;
  let atLineStart = true;
  while (index < text.length) {
    const character = text[index] ?? '';
    if (atLineStart) {
      atLineStart = false;
      LINE_START_MARKER.lastIndex = index;
      if (LINE_START_MARKER.test(text)) {
        index = protect(index, LINE_START_MARKER.lastIndex, 'markdown');
        continue;
      }
    }
    if (character === '\n') {
      atLineStart = true;
      index += 1;
    } else if (character === OPEN || character === CLOSE) {
      // The model's own private-use characters are protected too, so restoring is unambiguous.
      index = protect(index, index + 1, 'placeholder');
    } else if (character === '`') {
      index = protect(index, codeSpanEnd(text, index), 'code');
    } else if (character === '<' && typeof discordTokenLength(text, index, true) === 'number') {
      index = protect(index, index + (discordTokenLength(text, index, true) as number), 'discord');
    } else if (hasUrlScheme(text, index) && startsUrl(text, index)) {
      const extent = urlExtent(text, { start: index, final: true, maxLength: Infinity });
      index = extent.kind === 'url' ? protect(index, index + extent.length, 'url') : index + 1;
    } else if (EMPHASIS_CHARACTERS.has(character)) {
      index = protect(index, runEnd(text, index), 'markdown');
    } else if (character === '[' || (character === ']' && text[index + 1] === '(')) {
      index = protect(index, index + (character === '[' ? 1 : 2), 'markdown');
    } else {
      index += 1;
    }
  }
  pieces.push(text.slice(copiedUpTo));
  return { masked: pieces.join(''), spans };
}

export function restoreSpans(masked: string, spans: readonly ProtectedSpan[]): string {
  return masked.replace(PLACEHOLDER, (placeholder, index: string) => {
    return spans[Number(index)]?.text ?? placeholder;
  });
}

/** The end of the run of identical characters starting at `start`. */
function runEnd(text: string, start: number): number {
  const character = text[start];
  let end = start + 1;
  while (text[end] === character) end += 1;
  return end;
}

/**
 * The end of the code starting at a backtick run. Three or more backticks open a code block
 * that ends at the next run of three (Discord's rule; to the end when unclosed); a shorter run
 * opens inline code closed by a run of the same length (a lone run is just protected itself).
 */
function codeSpanEnd(text: string, start: number): number {
  const openEnd = runEnd(text, start);
  const length = openEnd - start;
  if (length >= 3) {
    const close = text.indexOf('```', openEnd);
    return close === -1 ? text.length : runEnd(text, close);
  }
  let search = openEnd;
  for (;;) {
    const close = text.indexOf('`', search);
    if (close === -1) return openEnd;
    const closeEnd = runEnd(text, close);
    if (closeEnd - close === length) return closeEnd;
    search = closeEnd;
  }
}
