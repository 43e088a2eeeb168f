import type { Block } from '../blocks/block-buffer.ts';
import { splitFenced } from './chunker.ts';
import { renderFenced, type FencedText } from '../blocks/fence.ts';

const EMPTY: FencedText = Object.freeze({
  text: '',
  fenceAtStart: undefined,
  fenceAtEnd: undefined,
});

/** What the edit-in-place composer asks the sink to do. */
export interface GrowingMessageTarget {
  show(content: string): void;
  seal(): void;
}

/**
 * Edit-in-place delivery: the reply grows in one message, edited as blocks arrive (and, between
 * blocks, with a preview of the text still being scanned). When it would pass the limit, the
 * message is finished at the best split point and a new one continues — a code block split
 * there is closed in the one and reopened in the next. Holds at most about one message of
 * text, so each update costs O(limit), never O(reply).
 */
export class GrowingMessage {
  private readonly limit: number;
  private readonly target: GrowingMessageTarget;
  private current: FencedText = EMPTY;
  private lastShown = '';
  /** Text that must separate the next block from the current text (a new model step). */
  private separator = '';

  constructor(options: { limit: number; target: GrowingMessageTarget }) {
    this.limit = options.limit;
    this.target = options.target;
  }

  append(block: Block): void {
    if (this.current.text !== '' && this.current.fenceAtEnd !== block.fenceAtStart) {
      // A new model step started outside the code block the previous one left open.
      this.seal();
    }
    const starting = this.current.text === '';
    this.current = {
      text: starting ? block.text : this.current.text + this.separator + block.text,
      fenceAtStart: starting ? block.fenceAtStart : this.current.fenceAtStart,
      fenceAtEnd: block.fenceAtEnd,
    };
    this.separator = '';
    const rendered = renderFenced(this.current);
    if (rendered.length <= this.limit) {
      this.show(rendered);
      return;
    }
    this.overflow();
  }

  /** Shows the current text followed by `pending` (not yet a block), when it fits. */
  preview(pending: FencedText): void {
    if (pending.text === '') return;
    const starting = this.current.text === '';
    const rendered = renderFenced({
      text: starting ? pending.text : this.current.text + this.separator + pending.text,
      fenceAtStart: starting ? pending.fenceAtStart : this.current.fenceAtStart,
      fenceAtEnd: pending.fenceAtEnd,
    });
    if (rendered.length <= this.limit) this.show(rendered);
  }

  /** The next block belongs to a new model step: keep the steps apart as paragraphs. */
  separateNext(): void {
    if (this.current.text !== '') this.separator = '\n\n';
  }

  /** The current message is final (end of the reply). */
  seal(): void {
    const rendered = renderFenced(this.current);
    if (rendered !== '') {
      this.show(rendered);
      this.target.seal();
    }
    this.current = EMPTY;
    this.lastShown = '';
    this.separator = '';
  }

  private overflow(): void {
    const pieces = splitFenced(this.current, this.limit);
    const complete = pieces.filter((piece) => piece.end !== 'end');
    let consumed = 0;
    for (const piece of complete) {
      consumed += piece.text.length;
      const rendered = renderFenced(piece);
      if (rendered === '') continue;
      this.show(rendered);
      this.target.seal();
      this.lastShown = '';
    }
    this.current = {
      text: this.current.text.slice(consumed),
      fenceAtStart:
        complete.length > 0 ? complete[complete.length - 1]?.fenceAtEnd : this.current.fenceAtStart,
      fenceAtEnd: this.current.fenceAtEnd,
    };
    const rest = renderFenced(this.current);
    if (rest !== '') this.show(rest);
  }

  private show(content: string): void {
    if (content === '' || content === this.lastShown) return;
    this.lastShown = content;
    this.target.show(content);
  }
}
