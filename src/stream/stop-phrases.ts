/**
 * Natural-language stop phrases (English and Japanese). Every phrase is an escaped literal —
 * a phrase like `c++` or `(stop)` can never break or widen the pattern — and matched with
 * Unicode-aware boundaries, so "stop" never matches inside "nonstop" or "stopwatch" and
 * 待って is found in 待ってください but 十分 is not in 十分な.
 */

export const DEFAULT_STOP_PHRASES: readonly string[] = [
  'stop',
  'stop it',
  'stop talking',
  'enough',
  "that's enough",
  'that is enough',
  'wait',
  'hold on',
  'hang on',
  'pause',
  'quit',
  'quit it',
  'nevermind',
  'never mind',
  'nvm',
  'cut it out',
  'knock it off',
  'shut up',
  'be quiet',
  'shh',
  'shush',
  'halt',
  'cancel',
  'やめて',
  'やめろ',
  '止めて',
  'ストップ',
  'もういい',
  '待って',
  'まって',
  '十分',
  'じゅうぶん',
  '黙って',
  'だまって',
  '静かに',
];

/** Small polite words that may come before a phrase and still leave it "on its own". */
const LEADING_WORDS = [
  'ok',
  'okay',
  'k',
  'alright',
  'all right',
  'please',
  'pls',
  'plz',
  'hey',
  'oh',
  'ah',
  'uh',
  'um',
  'hmm',
  'no',
  'nah',
  'ugh',
  'so',
  'wow',
  'dude',
  'man',
  'bro',
  'lol',
  'just',
  'now',
  'ちょっと',
  'ちょ',
  'ねえ',
  'ねぇ',
  'あの',
  'あのさ',
  'もう',
  'おい',
  'いや',
];

/** …and after it: "stop please", "stop, I get it", "やめてください". */
const TRAILING_WORDS = [
  'please',
  'pls',
  'plz',
  'now',
  'already',
  'right now',
  'for now',
  'a sec',
  'a second',
  'for a sec',
  'for a second',
  'a moment',
  'a minute',
  'thanks',
  'thank you',
  'thx',
  'ty',
  'lol',
  'lmao',
  'haha',
  'i get it',
  'i got it',
  'got it',
  'ok',
  'okay',
  'man',
  'dude',
  'bro',
  'there',
  'it',
  'talking',
  'right there',
  'ください',
  '下さい',
  'くれ',
  'よ',
  'ね',
  'って',
  'ってば',
  'して',
  'です',
  'だ',
  'だよ',
  'でしょ',
];

/** Japanese endings that may directly follow a Japanese phrase in a longer message. */
const JAPANESE_FOLLOWERS = ['ください', '下さい', 'くれ', 'して', 'です', 'だ', 'よ', 'ね', 'って'];

function escapeRegExp(literal: string): string {
  return literal.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

/** Longest first, so "stop it" is preferred to "stop" and "ってば" to "って". */
function alternation(literals: readonly string[]): string {
  return [...new Set(literals)]
    .sort((a, b) => b.length - a.length)
    .map((literal) => escapeRegExp(literal).replace(/ /g, '\\s+'))
    .join('|');
}

const hasJapanese = (text: string): boolean =>
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u.test(text);

/** Between two words: whitespace, or nothing where Japanese (written without spaces) meets. */
const GAP = String.raw`(?:\s+|(?<=[^\x00-\x7F])\s*|\s*(?=[^\x00-\x7F]))`;

export interface StopPhraseMatcher {
  /** The message is a stop phrase on its own, allowing small polite wrappers. */
  isStandalone(text: string): boolean;
  /** The message contains a stop phrase anywhere (for messages addressed to the bot). */
  contains(text: string): boolean;
}

export function createStopPhraseMatcher(
  phrases: readonly string[] = DEFAULT_STOP_PHRASES,
): StopPhraseMatcher {
  // Phrases go through the same normalisation as messages, so "Stop!" configured matches "stop".
  const cleaned = phrases.map(normalize).filter((phrase) => phrase !== '');
  const phrase = alternation(cleaned);
  const standalone = new RegExp(
    String.raw`^(?:(?:${alternation(LEADING_WORDS)})${GAP})*(?:${phrase})(?:${GAP}(?:${phrase}|${alternation(TRAILING_WORDS)}))*$`,
    'u',
  );
  const latin = cleaned.filter((literal) => !hasJapanese(literal));
  const japanese = cleaned.filter(hasJapanese);
  const patterns: RegExp[] = [];
  if (latin.length > 0) {
    patterns.push(
      new RegExp(String.raw`(?<![\p{L}\p{N}_])(?:${alternation(latin)})(?![\p{L}\p{N}_])`, 'u'),
    );
  }
  if (japanese.length > 0) {
    patterns.push(
      new RegExp(
        String.raw`(?<!\p{Script=Han})(?:${alternation(japanese)})(?=$|[\s\p{P}\p{S}]|${alternation(JAPANESE_FOLLOWERS)})`,
        'u',
      ),
    );
  }
  return {
    isStandalone(text) {
      const normalized = normalize(text);
      // A question is a question, not a stop ("wait?", "enough?").
      if (normalized === '' || /[?？]/.test(text)) return false;
      return standalone.test(normalized);
    },
    contains(text) {
      const normalized = normalize(text);
      return patterns.some((pattern) => pattern.test(normalized));
    },
  };
}

/** Sentence punctuation and markdown, dropped before matching (symbols like `+`, `#` stay). */
const PUNCTUATION = /[.,!?;:…~"“”„«»「」『』()（）[\]{}、。！？・—–*_`|\\/]/g;

/**
 * Lowercase, straight apostrophes, without Discord tokens, emoji and punctuation (replaced by
 * spaces), whitespace collapsed: "Okay, STOP!! 😅" → "okay stop".
 */
function normalize(text: string): string {
  return text
    .toLowerCase()
    .replace(/[’‘]/g, "'")
    .replace(/<[^<>\s]*>/g, ' ')
    .replace(/\p{Extended_Pictographic}|\uFE0F|\u200D/gu, ' ')
    .replace(PUNCTUATION, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}
