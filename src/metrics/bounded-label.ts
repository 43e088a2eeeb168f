/** The longest label value kept; longer values are cut (a label is a name, not a text). */
const MAX_VALUE_CHARS = 64;
export const OVERFLOW_LABEL = 'other';

/**
 * Keeps one label's cardinality bounded: the first `limit` distinct values are reported as
 * they are, every later one as `other`. For values members can choose (model names on a
 * local server, tool names a model makes up), so a time series per typo is never created.
 */
export class BoundedLabel {
  readonly #limit: number;
  readonly #seen = new Set<string>();

  constructor(limit: number) {
    this.#limit = limit;
  }

  value(raw: string): string {
    const value = raw.slice(0, MAX_VALUE_CHARS) || 'none';
    if (this.#seen.has(value)) return value;
    if (this.#seen.size >= this.#limit) return OVERFLOW_LABEL;
    this.#seen.add(value);
    return value;
  }
}
