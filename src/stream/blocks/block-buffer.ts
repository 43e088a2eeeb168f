import { CutCandidates } from './cut-candidates.ts';
import type { FencedText, FenceState } from './fence.ts';
import { GRAPHEME_WINDOW, graphemeBoundaryAtOrBefore } from './grapheme.ts';
import { MarkdownScanner, type BoundaryKind } from './markdown-scanner.ts';
import { LOOKBEHIND } from './scanner-rules.ts';

/** Why a block ended: at a boundary of that kind, by a cut with no whitespace, or at the end. */
export type BlockEnd = BoundaryKind | 'hard' | 'end';

/**
 * A finished piece of the reply. `text` is the exact slice of the model's text (concatenating
 * every block's text gives the reply back); the fences say whether it was cut inside a code
 * block, which `renderFenced` closes and reopens.
 */
export interface Block extends FencedText {
  end: BlockEnd;
  /** Cut because the block reached its size cap, not at a boundary its policy chose. */
  forced: boolean;
}

/**
 * When the buffer ends a block. A block ends at the first boundary, outside anything held, of
 * a kind whose minimum length it has reached (a stronger boundary also satisfies a weaker
 * kind's minimum). A block that reaches `holdCap` is cut at the best safe point regardless.
 */
export interface BlockPolicy {
  minimumLength: { paragraph: number; line: number; sentence: number };
  holdCap: number;
}

/** The smallest cap: every Discord token (≤ 128 characters) must fit in one block. */
export const MINIMUM_HOLD_CAP = 128;
const NO_BLOCKS: readonly Block[] = [];

/**
 * The semantic block buffer ("streaming dumb, chunking smart"): text deltas in, finished blocks
 * out, each scanned once. It never cuts inside a code block, inline code, quote, bracket,
 * emphasis, link, URL or Discord token unless the block outgrows its cap, and `finish` always
 * delivers the whole tail — also when the last delta was empty.
 */
export class SemanticBlockBuffer {
  private readonly policy: BlockPolicy;
  private readonly scanner: MarkdownScanner;
  private readonly candidates = new CutCandidates();
  /**
   * The text not yet in a block is `settled + window`: `settled` runs from `blockStart` to
   * `windowOffset`, `window` (what the scanner reads) from there to the end of what arrived.
   * Text moves from the window to `settled` once scanned, not per delta: one rope node per
   * delta at most (`+=` keeps them cheap V8 ropes).
   */
  private settled = '';
  private blockStart = 0;
  private available = 0;
  private window = '';
  private windowOffset = 0;
  /** The characters just before the window: the end of `lookbehindSource` (after a prefix). */
  private lookbehindPrefix = '';
  private lookbehindSource = '';
  private lookbehindEnd = 0;
  private fenceAtBlockStart: FenceState | undefined;
  private output: Block[] = [];
  /** Below this block length, text without a newline can end no block (see `deferrable`). */
  private readonly deferLimit: number;
  private finished = false;

  /** `fenceAtStart`: the text starts inside a code block (continuing an earlier slice). */
  constructor(policy: BlockPolicy, fenceAtStart?: FenceState) {
    this.policy = { ...policy, holdCap: Math.max(MINIMUM_HOLD_CAP, policy.holdCap) };
    this.scanner = new MarkdownScanner({
      listener: (position, kind, held) => this.onBoundary(position, kind, held),
      lookbehind: () => this.lookbehind(),
      maxUrlLength: this.policy.holdCap,
    });
    this.scanner.stopAt = this.policy.holdCap;
    this.scanner.fence = fenceAtStart;
    this.fenceAtBlockStart = fenceAtStart;
    const { line, sentence } = this.policy.minimumLength;
    this.deferLimit = Math.min(line, sentence, this.policy.holdCap);
  }

  push(delta: string): readonly Block[] {
    if (delta === '' || this.finished) return NO_BLOCKS;
    this.available += delta.length;
    // The window starts where the scanner stands; usually it has read everything, and the
    // window is just the new delta (no copying).
    const scanned = this.scanner.position - this.windowOffset;
    if (scanned > 0) {
      // The look-behind is rarely read (a period after a word begun in an earlier delta), so
      // only a reference is kept; short deltas fold the older look-behind in.
      if (scanned < LOOKBEHIND) this.lookbehindPrefix = this.lookbehind();
      this.lookbehindSource = this.window;
      this.lookbehindEnd = scanned;
      if (scanned === this.window.length) {
        this.settled += this.window;
        this.window = delta;
      } else {
        this.settled += this.window.slice(0, scanned);
        this.window = this.window.slice(scanned) + delta;
      }
      this.windowOffset = this.scanner.position;
    } else {
      this.window += delta;
    }
    if (this.deferrable(delta)) return NO_BLOCKS;
    this.run(false);
    return this.drain();
  }

  /** Ends the text: everything not yet delivered comes out, whatever is still open. */
  finish(): readonly Block[] {
    if (this.finished) return NO_BLOCKS;
    this.finished = true;
    this.run(true);
    const rest = this.unblocked(this.available);
    if (/\S/.test(rest)) {
      this.output.push({
        text: rest,
        end: 'end',
        forced: false,
        fenceAtStart: this.fenceAtBlockStart,
        fenceAtEnd: this.scanner.fence,
      });
    }
    this.settled = '';
    this.window = '';
    this.windowOffset = this.available;
    this.blockStart = this.available;
    return this.drain();
  }

  /** The scanned text not yet in a block, for live previews (never cut inside a token). */
  preview(): FencedText {
    // Scans deferred text; by the deferral rule that text can end no block, so no block is cut
    // (and none could go missing from the caller) here.
    if (!this.finished) this.run(false);
    return {
      text: this.unblocked(this.scanner.position),
      fenceAtStart: this.fenceAtBlockStart,
      fenceAtEnd: this.scanner.fence,
    };
  }

  /**
   * Text that cannot end a block yet is not scanned yet: without a newline no paragraph or
   * line can end in it, and below every minimum length and the cap no other cut can happen.
   * Scanning it later, in one go with what follows, gives the very same blocks at the very same
   * delta — it only saves the per-delta overhead on the many tiny deltas providers send.
   */
  private deferrable(delta: string): boolean {
    return this.available - this.blockStart < this.deferLimit && !delta.includes('\n');
  }

  /** The text from `blockStart` up to absolute `end` (at most the end of what arrived). */
  private unblocked(end: number): string {
    if (end <= this.windowOffset) return this.settled.slice(0, end - this.blockStart);
    return this.settled + this.window.slice(0, end - this.windowOffset);
  }

  private lookbehind(): string {
    const { lookbehindSource: source, lookbehindEnd: end } = this;
    return end >= LOOKBEHIND
      ? source.slice(end - LOOKBEHIND, end)
      : (this.lookbehindPrefix + source.slice(0, end)).slice(-LOOKBEHIND);
  }

  private run(final: boolean): void {
    for (;;) {
      const stop = this.scanner.scan(this.window, this.windowOffset, final);
      if (stop !== 'limit' || !this.forceCut(final)) return;
    }
  }

  private onBoundary(position: number, kind: Exclude<BoundaryKind, 'word'>, held: boolean): void {
    if (position <= this.blockStart) return;
    this.candidates.record(position, kind, this.scanner.fence);
    if (held || position - this.blockStart < this.minimumLength(kind)) return;
    if (this.scanner.contentEnd <= this.blockStart) return; // nothing but whitespace yet
    this.cut({ position, kind, fence: this.scanner.fence }, false);
  }

  private minimumLength(kind: Exclude<BoundaryKind, 'word'>): number {
    const { paragraph, line, sentence } = this.policy.minimumLength;
    switch (kind) {
      case 'paragraph':
        return Math.min(paragraph, line, sentence);
      case 'line':
        return Math.min(line, sentence);
      case 'sentence':
        return sentence;
    }
  }

  /**
   * The block reached its cap: cut at the strongest candidate in its second half, else the
   * strongest anywhere, else (no whitespace at all) at a grapheme boundary. Returns false when
   * that last cut must wait for a little more text to know where a grapheme ends.
   */
  private forceCut(final: boolean): boolean {
    // Word boundaries are noted by the scanner itself (one per word: too many for callbacks).
    const word = this.scanner.lastWord;
    if (word.position > this.blockStart) this.candidates.record(word.position, 'word', word.fence);
    const half = this.blockStart + Math.floor(this.policy.holdCap / 2);
    const candidate = this.candidates.best(half) ?? this.candidates.best(this.blockStart + 1);
    if (candidate !== undefined) {
      this.cut(candidate, true);
      return true;
    }
    const position = this.scanner.position;
    if (!final && this.available < position + GRAPHEME_WINDOW) return false;
    // Segmented from the block's start: a run of flags must be paired from its beginning.
    let cutAt = graphemeBoundaryAtOrBefore(this.unblocked(this.available), {
      offset: this.blockStart,
      position,
      floor: this.blockStart,
    });
    // Only a single unit longer than the cap (a run of thousands of `*`) gets here with nothing
    // before it: cutting inside it is the only way forward.
    if (cutAt <= this.blockStart) cutAt = this.blockStart + this.policy.holdCap;
    this.cut({ position: cutAt, kind: 'hard', fence: this.scanner.fence }, true);
    return true;
  }

  private cut(
    at: { position: number; kind: BoundaryKind | 'hard'; fence: FenceState | undefined },
    forced: boolean,
  ): void {
    this.output.push({
      text: this.unblocked(at.position),
      end: at.kind,
      forced,
      fenceAtStart: this.fenceAtBlockStart,
      fenceAtEnd: at.fence,
    });
    if (at.position >= this.windowOffset) {
      // The scan in progress keeps its own reference to the window it reads.
      this.window = this.window.slice(at.position - this.windowOffset);
      this.windowOffset = at.position;
      this.settled = '';
    } else {
      this.settled = this.settled.slice(at.position - this.blockStart);
    }
    this.fenceAtBlockStart = at.fence;
    this.blockStart = at.position;
    this.candidates.dropUpTo(at.position);
    this.scanner.stopAt = at.position + this.policy.holdCap;
  }

  private drain(): readonly Block[] {
    if (this.output.length === 0) return NO_BLOCKS;
    const blocks = this.output;
    this.output = [];
    return blocks;
  }
}
