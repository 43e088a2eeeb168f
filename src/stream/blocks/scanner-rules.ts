/** Character rules of the markdown scanner, kept apart so the state machine stays readable. */

/** Unicode whitespace by code unit (the scanner's hot path avoids regular expressions). */
export function isWhitespaceCode(code: number): boolean {
  return (
    code === 32 ||
    (code >= 9 && code <= 13) ||
    code === 0xa0 ||
    code === 0x3000 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x1680
  );
}

function isWhitespace(character: string | undefined): boolean {
  return character === undefined || isWhitespaceCode(character.charCodeAt(0));
}

function isWordCharacter(character: string | undefined): boolean {
  return character !== undefined && /[\p{L}\p{N}]/u.test(character);
}

/** Quote and bracket pairs that hold (besides `(`, `[` and the straight `"`). */
export const PAIRED_OPENERS: ReadonlySet<string> = new Set(['“', '‘', '「', '『', '【', '«']);
export const PAIRED_CLOSERS: ReadonlySet<string> = new Set(['”', '’', '」', '』', '】', '»']);

const SENTENCE_CLOSERS = new Set([')', ']', '"', "'", '”', '’', '」', '』', '）', '】', '»']);

/** Characters that may sit between a sentence's final punctuation and the space after it. */
export function closesSentence(character: string): boolean {
  return SENTENCE_CLOSERS.has(character);
}

const ABBREVIATIONS = new Set([
  'mr',
  'mrs',
  'ms',
  'dr',
  'prof',
  'sr',
  'jr',
  'st',
  'vs',
  'cf',
  'approx',
]);

/**
 * True when a period after `word` most likely does not end a sentence: a title ("Dr."), an
 * initial ("J."), or a dotted abbreviation ("e.g.", "U.S.").
 */
export function isAbbreviation(word: string): boolean {
  // Called at every period: no regular expressions on the common path.
  let start = 0;
  while (start < word.length && !isLetterCode(word.charCodeAt(start))) start += 1;
  const length = word.length - start;
  if (length === 0) return false;
  if (length === 1) {
    const code = word.charCodeAt(start);
    return (code >= 65 && code <= 90) || (code >= 128 && /\p{Lu}/u.test(word.slice(start)));
  }
  if (word.includes('.', start)) return true;
  return length <= 6 && ABBREVIATIONS.has(word.slice(start).toLowerCase());
}

/** ASCII letters, and anything beyond ASCII (where letters of other scripts live). */
function isLetterCode(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code >= 128;
}

const ITALIC_STAR = 1;
const BOLD = 2;
const ITALIC_UNDERSCORE = 4;
const UNDERLINE = 8;
const STRIKE = 16;
const SPOILER = 32;

/** The emphasis kinds a delimiter run stands for (Discord: * ** *** _ __ ~~ ||). */
function kindsOf(character: string, run: number): number[] {
  switch (character) {
    case '*':
      return run === 1 ? [ITALIC_STAR] : run === 2 ? [BOLD] : [BOLD, ITALIC_STAR];
    case '_':
      return run === 1
        ? [ITALIC_UNDERSCORE]
        : run === 2
          ? [UNDERLINE]
          : [UNDERLINE, ITALIC_UNDERSCORE];
    case '~':
      return run >= 2 ? [STRIKE] : [];
    case '|':
      return run >= 2 ? [SPOILER] : [];
    default:
      return [];
  }
}

/**
 * Which emphasis spans are open, by CommonMark-like flanking: a run opens when the next
 * character is not whitespace and closes when the previous one is not. So a list bullet
 * (`* item`), `2 * 3`, a lone `~5` and table pipes open nothing, and `_` inside a word
 * (snake_case) neither opens nor closes.
 */
export class EmphasisState {
  private flags = 0;

  static isDelimiter(character: string): boolean {
    return character === '*' || character === '_' || character === '~' || character === '|';
  }

  get open(): boolean {
    return this.flags !== 0;
  }

  apply(run: { character: string; run: number; before: string; after: string | undefined }): void {
    const leftFlanking = !isWhitespace(run.after);
    const rightFlanking = !isWhitespace(run.before);
    const underscore = run.character === '_';
    for (const kind of kindsOf(run.character, run.run)) {
      if ((this.flags & kind) !== 0) {
        if (rightFlanking && !(underscore && isWordCharacter(run.after))) this.flags &= ~kind;
      } else if (leftFlanking && !(underscore && isWordCharacter(run.before))) {
        this.flags |= kind;
      }
    }
  }

  reset(): void {
    this.flags = 0;
  }
}

/* Character classes of the scanner's hot path (charCode tests, no regular expressions). */

/** ASCII characters with no meaning to the scanner (1) — everything but those handled in `step`. */
export const ASCII_PLAIN = (() => {
  const table = new Uint8Array(128);
  for (let code = 32; code < 127; code += 1) table[code] = 1;
  for (const special of '`<*_~|.!?()[]"hH') table[special.charCodeAt(0)] = 0;
  return table;
})();

/** Non-ASCII characters the scanner handles: whitespace, CJK punctuation, paired quotes. */
const NON_ASCII_SPECIAL: ReadonlySet<number> = new Set([
  0xa0,
  0x1680,
  0x2028,
  0x2029,
  0x202f,
  0x205f,
  0x3000,
  ...Array.from({ length: 11 }, (_, index) => 0x2000 + index),
  ...[...'…。！？（）“”‘’「」『』【】«»'].map((character) => character.charCodeAt(0)),
]);

/** How many characters before a period the scanner may need (the longest abbreviation). */
export const LOOKBEHIND = 8;

export function isDigits(word: string): boolean {
  if (word === '') return false;
  for (let index = 0; index < word.length; index += 1) {
    const code = word.charCodeAt(index);
    if (code < 48 || code > 57) return false;
  }
  return true;
}

/** Range tests first: kana and kanji (U+3040 on) are plain and common in Japanese text. */
export function isSpecialNonAscii(code: number): boolean {
  if (code >= 0x3012) return code >= 0xff01 && code <= 0xff1f && NON_ASCII_SPECIAL.has(code);
  if (code < 0x2000) return code === 0xa0 || code === 0xab || code === 0xbb || code === 0x1680;
  return NON_ASCII_SPECIAL.has(code);
}

export function isHiraganaCode(code: number): boolean {
  return code >= 0x3041 && code <= 0x309f;
}

/** A known character other than `t`/`T` (NaN, the end of the text, is not known). */
export function notT(code: number): boolean {
  return code === code && code !== 116 && code !== 84;
}

export function isAsciiWordCode(code: number): boolean {
  return (
    (code >= 48 && code <= 57) ||
    (code >= 65 && code <= 90) ||
    (code >= 97 && code <= 122) ||
    code === 95
  );
}

export function runLength(text: string, index: number, code: number): number {
  let end = index + 1;
  while (end < text.length && text.charCodeAt(end) === code) end += 1;
  return end - index;
}
