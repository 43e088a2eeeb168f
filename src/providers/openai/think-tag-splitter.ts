/**
 * Splits streamed text into visible text and `<think>…</think>` reasoning, the way local
 * reasoning models (DeepSeek-R1, QwQ, Qwen3 behind Ollama, LM Studio, llama.cpp) write it inline.
 * Tags may arrive split across deltas ("<thi" + "nk>"), so a suffix that could still become a tag
 * is held back until the next delta decides. The result never depends on where the deltas split.
 */

export type ThinkSegment = { type: 'text' | 'reasoning'; text: string };

const OPEN_TAG = '<think>';
const CLOSE_TAG = '</think>';

export class ThinkTagSplitter {
  #inside = false;
  #pending = '';
  /** After `</think>` models put a blank line before the answer; it is not part of the answer. */
  #skipLeadingWhitespace = false;

  /** True when `delta` would come out unchanged as visible text (no tag, nothing held back). */
  passesThrough(delta: string): boolean {
    return (
      !this.#inside && this.#pending === '' && !this.#skipLeadingWhitespace && !delta.includes('<')
    );
  }

  push(delta: string): ThinkSegment[] {
    const segments: ThinkSegment[] = [];
    let text = this.#pending + delta;
    this.#pending = '';
    // A delta with no tag character at all passes straight through.
    if (!this.#skipLeadingWhitespace && !text.includes('<')) {
      this.#emit(segments, text);
      return segments;
    }
    while (text !== '') {
      if (this.#skipLeadingWhitespace) {
        text = text.trimStart();
        if (text === '') break;
        this.#skipLeadingWhitespace = false;
      }
      // Inside a block only its end matters. Outside, a stray `</think>` (models whose chat
      // template opened the block in the prompt) is markup, never part of the answer.
      const tags = this.#inside ? [CLOSE_TAG] : [OPEN_TAG, CLOSE_TAG];
      const found = firstTag(text, tags);
      if (found) {
        this.#emit(segments, text.slice(0, found.index));
        if (found.tag === OPEN_TAG) this.#inside = true;
        else {
          this.#inside = false;
          this.#skipLeadingWhitespace = true;
        }
        text = text.slice(found.index + found.tag.length);
        continue;
      }
      const held = Math.max(...tags.map((tag) => partialTagLength(text, tag)));
      this.#emit(segments, text.slice(0, text.length - held));
      this.#pending = text.slice(text.length - held);
      break;
    }
    return segments;
  }

  /** The end of the stream: whatever was held back is what it looked like (an unclosed think block stays reasoning). */
  flush(): ThinkSegment[] {
    const segments: ThinkSegment[] = [];
    this.#emit(segments, this.#pending);
    this.#pending = '';
    return segments;
  }

  #emit(segments: ThinkSegment[], text: string): void {
    if (text !== '') segments.push({ type: this.#inside ? 'reasoning' : 'text', text });
  }
}

function firstTag(
  text: string,
  tags: readonly string[],
): { tag: string; index: number } | undefined {
  let first: { tag: string; index: number } | undefined;
  for (const tag of tags) {
    const index = text.indexOf(tag);
    if (index >= 0 && (first === undefined || index < first.index)) first = { tag, index };
  }
  return first;
}

/**
 * Length of the longest suffix of `text` that is a proper prefix of `tag`. Tags start with the
 * only "<" they contain, so the one candidate suffix starts at the last "<" (this runs on every
 * delta of every stream; it must not try every length).
 */
function partialTagLength(text: string, tag: string): number {
  const start = text.lastIndexOf('<');
  if (start < 0 || text.length - start >= tag.length) return 0;
  return tag.startsWith(text.slice(start)) ? text.length - start : 0;
}
