/**
 * Matches a scope's trigger words in message text: each word is an escaped literal (so `c++`
 * or `.*` are just text, and no word can break matching for every message), case-insensitive after NFKC normalization (full-
 * width letters match), on Unicode word boundaries for words that begin or end with a letter
 * or digit, and anywhere for Japanese/Chinese words, which are written without spaces.
 */
const WORD_CHARACTER = /[\p{L}\p{N}_]/u;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

export class TriggerWordMatcher {
  private readonly pattern: RegExp | undefined;

  constructor(words: readonly string[]) {
    const alternatives = words
      .map((word) => word.normalize('NFKC').trim())
      .filter((word) => word !== '')
      .sort((a, b) => b.length - a.length)
      .map(toPattern);
    this.pattern = alternatives.length === 0 ? undefined : new RegExp(alternatives.join('|'), 'iu');
  }

  matches(text: string): boolean {
    return this.pattern?.test(text.normalize('NFKC')) ?? false;
  }
}

/** One word as a pattern: escaped, bounded as the class comment says (flags `iu`, NFKC text). */
export function toPattern(word: string): string {
  const escaped = word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const first = word.at(0) ?? '';
  const last = word.at(-1) ?? '';
  const before = WORD_CHARACTER.test(first) && !CJK.test(first) ? '(?<![\\p{L}\\p{N}_])' : '';
  const after = WORD_CHARACTER.test(last) && !CJK.test(last) ? '(?![\\p{L}\\p{N}_])' : '';
  return `${before}${escaped}${after}`;
}
