import {
  protectSpans,
  restoreSpans,
  TRAILING_PLACEHOLDER,
  type ProtectedSpan,
} from './protected-spans.ts';

/**
 * The degree-3 rewrite of one message: lowercase except acronyms and protected spans, the
 * trailing period dropped, a little punctuation softened. Code, URLs, Discord tokens and
 * markdown markers come out byte-identical (they are placeholders while this runs).
 */
export function applyHeavyStyle(text: string): string {
  const { masked, spans } = protectSpans(text);
  const softened = softenPunctuation(lowercaseExceptAcronyms(masked));
  return restoreSpans(dropTrailingPeriod(softened, spans), spans);
}

const WORD = /[\p{L}\p{M}\p{N}'’]+/gu;
const POSSESSIVE_OR_PLURAL = /(?<=\p{Lu})(?:['’]s|s)$/u;

/**
 * Lowercases every word that is not an acronym. "I" becomes "i" (how people type casually);
 * "NASA", "APIs", "GPU's" and "MP3" stay as written, since lowercasing them changes meaning.
 */
export function lowercaseExceptAcronyms(text: string): string {
  return text.replace(WORD, (word) => (isAcronym(word) ? word : word.toLowerCase()));
}

export function isAcronym(word: string): boolean {
  const letters = word.replace(POSSESSIVE_OR_PLURAL, '').replace(/[^\p{L}]/gu, '');
  return (
    letters.length >= 2 && letters === letters.toUpperCase() && letters !== letters.toLowerCase()
  );
}

/**
 * Light softening, the tics a person typing fast would not bother with: an em dash between
 * words becomes a comma, a semicolon before a space becomes a comma, repeated `!`/`?` collapse.
 * En dashes (ranges like 1–5) and anything inside protected spans are left alone.
 */
export function softenPunctuation(text: string): string {
  return text
    .replace(/(?<=[\p{Script=Latin}\p{N}])[ \t]*—[ \t]*(?=[\p{Script=Latin}\p{N}])/gu, ', ')
    .replace(/;(?= )/g, ',')
    .replace(/!{2,}/g, '!')
    .replace(/\?{2,}/g, '?')
    .replace(/！{2,}/g, '！')
    .replace(/？{2,}/g, '？');
}

/** Closing quotes and brackets a trailing period may sit inside: `(like this.)`, `"so."`. */
const CLOSERS = new Set([')', ']', '"', '”', '’', '」', '』', '）', "'"]);

/**
 * Drops one trailing `.` or `。` (an ellipsis stays: it carries tone), looking through trailing
 * whitespace, closing quotes and markdown markers such as the `**` of `**done.**`.
 */
export function dropTrailingPeriod(masked: string, spans: readonly ProtectedSpan[]): string {
  let end = masked.length;
  for (;;) {
    while (end > 0 && /\s/.test(masked[end - 1] ?? '')) end -= 1;
    const trailing = TRAILING_PLACEHOLDER.exec(masked.slice(Math.max(0, end - 12), end));
    if (trailing !== null && spans[Number(trailing[1])]?.kind === 'markdown') {
      end -= trailing[0].length;
      continue;
    }
    if (end > 0 && CLOSERS.has(masked[end - 1] ?? '')) {
      end -= 1;
      continue;
    }
    break;
  }
  const last = masked[end - 1];
  const isPeriod = (last === '.' && masked[end - 2] !== '.') || last === '。';
  return isPeriod ? masked.slice(0, end - 1) + masked.slice(end) : masked;
}
