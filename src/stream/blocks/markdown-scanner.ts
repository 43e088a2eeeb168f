import {
  discordTokenLength,
  hasUrlScheme,
  URL_SCHEME_LOOKAHEAD,
  urlExtent,
} from '../../humanizer/markdown-tokens.ts';
import type { FenceState } from './fence.ts';
import {
  ASCII_PLAIN,
  closesSentence,
  EmphasisState,
  isAbbreviation,
  isAsciiWordCode,
  isDigits,
  isHiraganaCode,
  isSpecialNonAscii,
  isWhitespaceCode,
  LOOKBEHIND,
  notT,
  PAIRED_CLOSERS,
  PAIRED_OPENERS,
  runLength,
} from './scanner-rules.ts';

/** Where text may be cut, strongest first. */
export type BoundaryKind = 'paragraph' | 'line' | 'sentence' | 'word';

/**
 * Called for each paragraph, line and sentence boundary: `position` is where the next block
 * would start (on the whitespace), `held` is true while a construct that should not be split
 * is open. Plain word boundaries are too frequent for a call each: see `lastWord`.
 */
export type BoundaryListener = (
  position: number,
  kind: Exclude<BoundaryKind, 'word'>,
  held: boolean,
) => void;

/** Why a scan returned: more text is needed, `stopAt` was reached, or all text was scanned. */
export type ScanStop = 'need-input' | 'limit' | 'done';

const BACKTICK = 96;
const NEWLINE = 10;
const SPACE = 32;
const LESS_THAN = 60;
const LOWER_H = 104;
const UPPER_H = 72;
/** How far past a fence opener we look for its language word and newline. */
const LANGUAGE_LOOKAHEAD = 26;
const LANGUAGE = /[A-Za-z0-9_+#.-]{0,24}(?=\r?\n)/y;

/**
 * An incremental markdown scanner with constant work per character: it keeps its state
 * (open code block, inline code, emphasis, brackets, quotes, sentence end, …) between calls, so
 * a streamed reply is scanned exactly once however it is split into deltas. Decisions depend
 * only on the text (bounded lookahead: it waits for more text rather than guess), so every way
 * of splitting the same text into deltas yields the same boundaries.
 *
 * URLs and Discord tokens (mentions, custom emoji, timestamps) are consumed whole: no boundary
 * is ever reported inside one. `:)`, `;)`, `1)` and `a)` never open anything; an unmatched
 * opener only holds until the paragraph ends (markdown's own scope for inline constructs).
 *
 * The file is long on purpose: one state machine whose transitions share its state (the inline
 * holds below are part of it). What could stand apart does: the character classes and rules
 * (scanner-rules.ts).
 */
export class MarkdownScanner {
  /** Absolute position of the next character to scan. */
  position = 0;
  /** The scanner does not consume past this absolute position (returns `limit`). */
  stopAt = Number.POSITIVE_INFINITY;
  /** The code block open at `position`, if any. */
  fence: FenceState | undefined;
  /** Where the last non-whitespace character scanned ends (so a block has something to show). */
  contentEnd = 0;
  /** The latest boundary of any kind (a word boundary at least), and the code block open there. */
  readonly lastWord: { position: number; fence: FenceState | undefined } = {
    position: -1,
    fence: undefined,
  };

  private readonly listener: BoundaryListener;
  private readonly maxUrlLength: number;
  private readonly holds = new InlineHolds();
  private lineHasContent = false;
  private lineContentStart = -1;
  private wordStart = 0;
  /**
   * 0 none; 1 after `.!?…` (ends at whitespace); 2 after `。！？` (ends at the next character);
   * 3 after `。」`-like closers (ends at the next character unless it is hiragana: in
   * 「はい。」と言った the quotative particle continues the sentence).
   */
  private sentenceEnd: 0 | 1 | 2 | 3 = 0;
  private previous = NEWLINE;
  private beforePrevious = NEWLINE;
  private inLongUrl = false;
  /** The LOOKBEHIND characters just before the text of the current scan (rarely needed). */
  private readonly lookbehind: () => string;

  constructor(options: {
    listener: BoundaryListener;
    maxUrlLength: number;
    /** The characters just before the text of each scan; none when the text is complete. */
    lookbehind?: () => string;
  }) {
    this.listener = options.listener;
    this.lookbehind = options.lookbehind ?? (() => '');
    this.maxUrlLength = options.maxUrlLength;
  }

  /** True while something that should not be split is open. */
  get holding(): boolean {
    return this.fence !== undefined || this.holds.any;
  }

  /**
   * Scans `text` (whose first character is at absolute `offset`) from `position` on. With
   * `final`, the end of `text` is the end of the reply and no more lookahead is awaited.
   */
  scan(text: string, offset: number, final: boolean): ScanStop {
    const end = offset + text.length;
    while (this.position < end) {
      if (this.sentenceEnd < 2 && this.plainRun(text, offset, end) > 0) continue;
      const index = this.position - offset;
      const length =
        this.fence !== undefined ? this.inFence(text, index, final) : this.step(text, index, final);
      if (length === 0) return 'need-input';
      if (length < 0) return 'limit';
    }
    return final ? 'done' : 'need-input';
  }

  /**
   * The hot path: consumes a run of characters that mean nothing to the scanner (letters,
   * digits, most punctuation) in one go. Such characters are plain content in every state.
   */
  private plainRun(text: string, offset: number, end: number): number {
    const start = this.position - offset;
    // A space right after a sentence end is a sentence boundary: the slow path reports it.
    if (this.sentenceEnd === 1 && text.charCodeAt(start) === SPACE) return 0;
    const limit = (end < this.stopAt ? end : this.stopAt) - offset;
    let cursor = start;
    while (cursor < limit) {
      const code = text.charCodeAt(cursor);
      // Lowercase letters other than `h` and spaces are most of any prose: test them first.
      if ((code >= 97 && code <= 122 && code !== LOWER_H) || code === SPACE) {
        cursor += 1;
        continue;
      }
      if (code < 128) {
        if (ASCII_PLAIN[code] !== 1) {
          // `h` starts a URL only after a non-word character and before a `t`.
          if (code !== LOWER_H && code !== UPPER_H) break;
          const before = cursor > start ? text.charCodeAt(cursor - 1) : this.previous;
          if (!isAsciiWordCode(before) && !notT(text.charCodeAt(cursor + 1))) break;
        }
      } else if (isSpecialNonAscii(code)) {
        break;
      }
      cursor += 1;
    }
    const length = cursor - start;
    if (length === 0) return 0;
    // What the run held, worked out once afterwards rather than per character.
    let firstContent = start;
    while (firstContent < cursor && text.charCodeAt(firstContent) === SPACE) firstContent += 1;
    let lastSpace = cursor - 1;
    while (lastSpace >= start && text.charCodeAt(lastSpace) !== SPACE) lastSpace -= 1;
    this.beforePrevious = length > 1 ? text.charCodeAt(cursor - 2) : this.previous;
    this.previous = text.charCodeAt(cursor - 1);
    if (firstContent < cursor) {
      let lastContent = cursor - 1;
      while (text.charCodeAt(lastContent) === SPACE) lastContent -= 1;
      this.contentEnd = lastContent + 1 + offset;
      if (!this.lineHasContent) {
        this.lineHasContent = true;
        this.lineContentStart = firstContent + offset;
      }
      if (this.sentenceEnd === 1) this.sentenceEnd = 0;
    }
    if (lastSpace >= start) {
      // Spaces inside the run are word boundaries: only the latest matters to anyone.
      this.lastWord.position = lastSpace + offset;
      this.lastWord.fence = this.fence;
      this.wordStart = lastSpace + 1 + offset;
      this.inLongUrl = false;
    }
    this.position += length;
    return length;
  }

  /** Consumes `length` characters if they fit before `stopAt`; returns what `scan` expects. */
  private consume(length: number, lastCode: number): number {
    if (this.position + length > this.stopAt) return -1;
    this.position += length;
    if (!isWhitespaceCode(lastCode)) this.contentEnd = this.position;
    this.beforePrevious = length > 1 ? lastCode : this.previous;
    this.previous = lastCode;
    return length;
  }

  private report(kind: Exclude<BoundaryKind, 'word'>): void {
    this.noteWord();
    this.listener(this.position, kind, kind === 'paragraph' ? false : this.holding);
  }

  private noteWord(): void {
    this.lastWord.position = this.position;
    this.lastWord.fence = this.fence;
  }

  private inFence(text: string, index: number, final: boolean): number {
    const code = text.charCodeAt(index);
    if (code === BACKTICK) {
      const run = runLength(text, index, BACKTICK);
      if (index + run === text.length && !final) return 0;
      if (run >= 3) {
        const consumed = this.consume(run, BACKTICK);
        if (consumed > 0) this.fence = undefined;
        return consumed;
      }
      return this.consume(run, BACKTICK);
    }
    if (code === NEWLINE) this.report('line');
    else if (isWhitespaceCode(code)) this.noteWord();
    return this.consume(1, code);
  }

  private step(text: string, index: number, final: boolean): number {
    const code = text.charCodeAt(index);
    if (this.sentenceEnd >= 2 && !isWhitespaceCode(code)) {
      if (closesSentence(text[index] ?? '')) {
        this.sentenceEnd = 3;
      } else {
        const continues = this.sentenceEnd === 3 && isHiraganaCode(code);
        this.sentenceEnd = 0;
        if (!continues) this.report('sentence');
      }
    }
    if (code === NEWLINE) return this.newline();
    if (isWhitespaceCode(code)) {
      if (this.sentenceEnd !== 0) this.report('sentence');
      else this.noteWord();
      const consumed = this.consume(1, code);
      if (consumed > 0) {
        this.sentenceEnd = 0;
        this.wordStart = this.position;
        this.inLongUrl = false;
      }
      return consumed;
    }
    if (this.inLongUrl) return this.content(1, code);
    if (this.holds.inlineCode > 0)
      return code === BACKTICK ? this.backticks(text, index, final) : this.content(1, code);
    if (code === BACKTICK) return this.backticks(text, index, final);
    if (code === LESS_THAN) {
      const token = discordTokenLength(text, index, final);
      if (token === 'incomplete') return 0;
      if (token !== undefined) return this.content(token, text.charCodeAt(index + token - 1));
    }
    if (code === LOWER_H || code === UPPER_H) {
      const url = this.previousAllowsUrl() ? this.url(text, index, final) : undefined;
      return url ?? this.content(1, code);
    }
    return this.punctuation(text, index, final);
  }

  private newline(): number {
    const blankLine = !this.lineHasContent;
    if (blankLine) {
      // A blank line ends the paragraph, and with it every inline construct left open.
      this.holds.reset();
    }
    this.report(blankLine ? 'paragraph' : 'line');
    const consumed = this.consume(1, NEWLINE);
    if (consumed > 0) {
      this.lineHasContent = false;
      this.lineContentStart = -1;
      this.wordStart = this.position;
      this.sentenceEnd = 0;
      this.inLongUrl = false;
    }
    return consumed;
  }

  /**
   * Three or more backticks always open a code block, even inside inline code. Discord would
   * show such a run inside inline code literally, but no model writes that, and this way whether
   * a code block is open depends only on the backtick runs: a slice re-scanned on its own (the
   * chunker, the edit composer) agrees with the stream's scan about where code blocks are.
   */
  private backticks(text: string, index: number, final: boolean): number {
    const run = runLength(text, index, BACKTICK);
    if (index + run === text.length && !final) return 0;
    if (run >= 3) {
      LANGUAGE.lastIndex = index + run;
      const language = LANGUAGE.exec(text);
      if (language === null && !final && text.length < index + run + LANGUAGE_LOOKAHEAD) return 0;
      const consumed = this.content(run, BACKTICK);
      if (consumed > 0) {
        this.fence = { language: language?.[0] ?? '' };
        this.holds.inlineCode = 0;
      }
      return consumed;
    }
    if (this.holds.inlineCode > 0) {
      const closes = run === this.holds.inlineCode;
      const consumed = this.content(run, BACKTICK);
      if (consumed > 0 && closes) this.holds.inlineCode = 0;
      return consumed;
    }
    const consumed = this.content(run, BACKTICK);
    if (consumed > 0) this.holds.inlineCode = run;
    return consumed;
  }

  /** A URL starts on a word boundary (cheap ASCII test first: `h` is a common letter). */
  private previousAllowsUrl(): boolean {
    const code = this.previous;
    if (code < 128) return !isAsciiWordCode(code);
    return !/[\p{L}\p{N}]/u.test(String.fromCharCode(code));
  }

  /** A URL consumed whole; undefined when no URL starts here. */
  private url(text: string, index: number, final: boolean): number | undefined {
    const second = text.charCodeAt(index + 1);
    if (second !== 116 && second !== 84 && !(Number.isNaN(second) && !final)) return undefined; // t T
    if (index + URL_SCHEME_LOOKAHEAD > text.length && !final) {
      const head = text.slice(index).toLowerCase();
      if ('https://'.startsWith(head) || 'http://'.startsWith(head)) return 0;
      return undefined;
    }
    if (!hasUrlScheme(text, index)) return undefined;
    const extent = urlExtent(text, { start: index, final, maxLength: this.maxUrlLength });
    if (extent.kind === 'incomplete') return 0;
    if (extent.kind === 'too-long') {
      // Longer than a block may be: scanned character by character (cuttable) until it ends.
      this.inLongUrl = true;
      return this.content(1, text.charCodeAt(index));
    }
    return this.content(extent.length, text.charCodeAt(index + extent.length - 1));
  }

  /** Plain content: it ends a pending Latin sentence end and starts the line's content. */
  private content(length: number, lastCode: number, keepsSentenceEnd = false): number {
    const start = this.position;
    const consumed = this.consume(length, lastCode);
    if (consumed > 0) {
      if (!this.lineHasContent) {
        this.lineHasContent = true;
        this.lineContentStart = start;
      }
      if (!keepsSentenceEnd && this.sentenceEnd === 1) this.sentenceEnd = 0;
    }
    return consumed;
  }

  private punctuation(text: string, index: number, final: boolean): number {
    const character = text[index] ?? '';
    const code = text.charCodeAt(index);
    if (EmphasisState.isDelimiter(character)) {
      const run = runLength(text, index, code);
      if (index + run === text.length && !final) return 0;
      const before = String.fromCharCode(this.previous);
      const consumed = this.content(run, code, true);
      if (consumed > 0)
        this.holds.emphasis.apply({ character, run, before, after: text[index + run] });
      return consumed;
    }
    switch (character) {
      case '.':
      case '!':
      case '?':
      case '…':
        return this.sentenceTerminal(text, index, character);
      case '。':
      case '！':
      case '？': {
        const consumed = this.content(1, code);
        if (consumed > 0) this.sentenceEnd = 2;
        return consumed;
      }
      case '(':
      case '（': {
        const emoticon = this.previousIsEmoticonEye();
        const consumed = this.content(1, code);
        if (consumed > 0 && !emoticon) this.holds.parentheses += 1;
        return consumed;
      }
      case ')':
      case '）': {
        const emoticon = this.previousIsEmoticonEye();
        const consumed = this.content(1, code, true);
        if (consumed > 0 && !emoticon && this.holds.parentheses > 0) this.holds.parentheses -= 1;
        return consumed;
      }
      case '[': {
        const consumed = this.content(1, code);
        if (consumed > 0) this.holds.brackets += 1;
        return consumed;
      }
      case ']': {
        const consumed = this.content(1, code, true);
        if (consumed > 0 && this.holds.brackets > 0) this.holds.brackets -= 1;
        return consumed;
      }
      case '"': {
        const closing = this.holds.straightQuote;
        const consumed = this.content(1, code, closing);
        if (consumed > 0) this.holds.straightQuote = !closing;
        return consumed;
      }
      default:
        return this.pairedQuote(character, code);
    }
  }

  private pairedQuote(character: string, code: number): number {
    if (PAIRED_OPENERS.has(character)) {
      const consumed = this.content(1, code);
      if (consumed > 0) this.holds.pairedQuotes += 1;
      return consumed;
    }
    if (PAIRED_CLOSERS.has(character) && this.holds.pairedQuotes > 0) {
      const consumed = this.content(1, code, true);
      if (consumed > 0) this.holds.pairedQuotes -= 1;
      return consumed;
    }
    return this.content(1, code, closesSentence(character));
  }

  private sentenceTerminal(text: string, index: number, character: string): number {
    const code = text.charCodeAt(index);
    const wasEnding = this.sentenceEnd === 1;
    const start = this.position;
    const consumed = this.content(1, code, true);
    if (consumed <= 0) return consumed;
    if (wasEnding || character !== '.') {
      this.sentenceEnd = 1;
      return consumed;
    }
    const wordLength = start - this.wordStart;
    const word =
      wordLength > 0 && wordLength <= LOOKBEHIND ? this.textBefore(text, index, wordLength) : '';
    const listLabel = isDigits(word) && this.wordStart === this.lineContentStart;
    this.sentenceEnd = listLabel || isAbbreviation(word) ? 0 : 1;
    return consumed;
  }

  /** The `length` characters before `index` of `text`, reaching into the look-behind. */
  private textBefore(text: string, index: number, length: number): string {
    if (index >= length) return text.slice(index - length, index);
    const before = this.lookbehind();
    return before.slice(before.length - (length - index)) + text.slice(0, index);
  }

  /** `:(`, `;)`, `=)`, `:-)`: the bracket is a face, not an opener or closer. */
  private previousIsEmoticonEye(): boolean {
    const eye = (code: number): boolean => code === 58 || code === 59 || code === 61; // : ; =
    return eye(this.previous) || (this.previous === 45 && eye(this.beforePrevious)); // -
  }
}

/**
 * The inline constructs open at the scan position that a block must not be cut inside: inline
 * code, emphasis (bold, italics, underline, strike, spoiler), parentheses, link brackets and
 * quotes (straight, curly, 「」『』【】«»). All of them end with their paragraph.
 */
class InlineHolds {
  readonly emphasis = new EmphasisState();
  /** The backtick run length of the open inline code; 0 when none. */
  inlineCode = 0;
  parentheses = 0;
  brackets = 0;
  straightQuote = false;
  pairedQuotes = 0;

  get any(): boolean {
    return (
      this.inlineCode > 0 ||
      this.emphasis.open ||
      this.parentheses > 0 ||
      this.brackets > 0 ||
      this.straightQuote ||
      this.pairedQuotes > 0
    );
  }

  /** A blank line ends the paragraph, and with it every inline construct left open. */
  reset(): void {
    this.emphasis.reset();
    this.inlineCode = 0;
    this.parentheses = 0;
    this.brackets = 0;
    this.straightQuote = false;
    this.pairedQuotes = 0;
  }
}
