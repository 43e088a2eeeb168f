/**
 * A tokenizer-free token estimate for models whose tokenizer we do not ship (Gemini, Claude,
 * local models). Calibrated against o200k on English prose, source code, Chinese, Japanese,
 * Korean, Russian and emoji (token-estimate.test.ts holds it within 0.85–1.5× of the o200k count):
 * it leans high on purpose, because an underestimate overflows the context window.
 */

/** ASCII letters and spaces: English prose runs ~4.7 characters per o200k token. */
const WORD_CHARACTERS_PER_TOKEN = 4;
/** ASCII digits, punctuation and line breaks: code and URLs split far more often. */
const SYMBOL_CHARACTERS_PER_TOKEN = 2;
/** Other letters that are not CJK (Cyrillic, Greek, Arabic, accented Latin…). */
const OTHER_CHARACTERS_PER_TOKEN = 2.8;
/** Han and kana: about one token per character. */
const CJK_TOKENS_PER_CHARACTER = 1;
/** Hangul syllables pack a little better than Han characters. */
const HANGUL_TOKENS_PER_CHARACTER = 0.8;
/** Emoji and other astral-plane symbols cost about two tokens each. */
const ASTRAL_TOKENS_PER_CHARACTER = 2;

function isWordCharacter(code: number): boolean {
  return code === 0x20 || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}

function isCjk(code: number): boolean {
  return (
    (code >= 0x3040 && code <= 0x30ff) || // hiragana, katakana
    (code >= 0x3400 && code <= 0x4dbf) || // CJK extension A
    (code >= 0x4e00 && code <= 0x9fff) || // CJK unified ideographs
    (code >= 0xf900 && code <= 0xfaff) || // CJK compatibility ideographs
    (code >= 0xff00 && code <= 0xffef) || // full-width forms
    (code >= 0x3000 && code <= 0x303f) // CJK punctuation
  );
}

/** Estimated tokens in `text`; one pass over UTF-16 code units, no allocation. */
export function estimateTokens(text: string): number {
  let word = 0;
  let symbol = 0;
  let other = 0;
  let cjk = 0;
  let hangul = 0;
  let astral = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x80) {
      if (isWordCharacter(code)) word += 1;
      else symbol += 1;
    } else if (code >= 0xd800 && code <= 0xdbff) {
      astral += 1;
      index += 1; // the low surrogate belongs to the same character
    } else if (code >= 0xac00 && code <= 0xd7af) hangul += 1;
    else if (isCjk(code)) cjk += 1;
    else other += 1;
  }
  return Math.ceil(
    word / WORD_CHARACTERS_PER_TOKEN +
      symbol / SYMBOL_CHARACTERS_PER_TOKEN +
      other / OTHER_CHARACTERS_PER_TOKEN +
      cjk * CJK_TOKENS_PER_CHARACTER +
      hangul * HANGUL_TOKENS_PER_CHARACTER +
      astral * ASTRAL_TOKENS_PER_CHARACTER,
  );
}
