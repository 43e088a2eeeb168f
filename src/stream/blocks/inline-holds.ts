import { EmphasisState } from './scanner-rules.ts';

/**
 * The inline constructs open at the scan position that a block must not be cut inside: inline
 * code, emphasis (bold, italics, underline, strike, spoiler), parentheses, link brackets and
 * quotes (straight, curly, 「」『』【】«»). All of them end with their paragraph.
 */
export class InlineHolds {
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
