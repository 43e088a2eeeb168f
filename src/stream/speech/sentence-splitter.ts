/**
 * Cuts a reply streaming in as text into sentences to speak, as soon as each is complete: at
 * `.` `!` `?` followed by white space, at `。` `！` `？` (no space follows them in Japanese), and
 * at a line break after a sentence's worth of text. Code blocks are not read aloud, and
 * markdown marks are dropped from what is spoken.
 */

/** A line break ends a sentence only after this much text (a list item, a heading). */
const MIN_LINE_SENTENCE = 12;
/** A sentence without an ending is cut at white space once it is this long. */
const MAX_SENTENCE = 400;

const LIST_MARKER = /^\s*(?:[-+*]|\d+[.)])\s+/;

const ENDING = /([.!?…]+["')\]]*)(\s)|([。！？]+[」』）]*)/u;

export class SentenceSplitter {
  #pending = '';
  #inFence = false;
  #lineStart = true;

  /** Adds streamed text; answers the sentences it completed, in order, ready to speak. */
  push(text: string): string[] {
    const sentences: string[] = [];
    for (const piece of text.split(/(\n)/)) {
      if (piece === '\n') {
        this.#lineStart = true;
        if (!this.#inFence && speakable(this.#pending).length >= MIN_LINE_SENTENCE)
          sentences.push(...this.#take(this.#pending.length));
        else this.#pending += ' ';
        continue;
      }
      if (this.#lineStart && /^\s*(```|~~~)/.test(piece)) {
        // Text before a code block is a sentence of its own: the code between is not spoken.
        if (!this.#inFence) sentences.push(...this.#take(this.#pending.length));
        this.#inFence = !this.#inFence;
        this.#lineStart = piece === '';
        continue;
      }
      const atLineStart = this.#lineStart;
      this.#lineStart = piece === '' ? this.#lineStart : false;
      if (this.#inFence) continue;
      // A list item's marker is not spoken ("1." would also end a sentence).
      this.#pending += atLineStart ? piece.replace(LIST_MARKER, '') : piece;
      sentences.push(...this.#complete());
    }
    return sentences.filter((sentence) => sentence !== '');
  }

  /** The reply ended: what is left, if anything is worth speaking. */
  end(): string | undefined {
    const rest = speakable(this.#pending);
    this.#pending = '';
    return rest === '' ? undefined : rest;
  }

  #complete(): string[] {
    const sentences: string[] = [];
    for (;;) {
      const match = ENDING.exec(this.#pending);
      if (match !== null) {
        const end = match.index + (match[1]?.length ?? match[3]?.length ?? 0);
        sentences.push(...this.#take(end));
        continue;
      }
      if (this.#pending.length < MAX_SENTENCE) return sentences;
      const space = this.#pending.lastIndexOf(' ', MAX_SENTENCE);
      sentences.push(...this.#take(space > 0 ? space : MAX_SENTENCE));
    }
  }

  #take(end: number): string[] {
    const sentence = speakable(this.#pending.slice(0, end));
    this.#pending = this.#pending.slice(end).replace(/^\s+/, '');
    return sentence === '' ? [] : [sentence];
  }
}

/** What a sentence sounds like: links by their text, no URLs, no markdown marks. */
export function speakable(text: string): string {
  return text
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<?https?:\/\/\S+>?/g, '')
    .replace(/<a?:(\w+):\d+>/g, '$1')
    .replace(/[*_`~|>#]+/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}
