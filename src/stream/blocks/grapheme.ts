/** Grapheme-safe cutting for the rare cut with no whitespace to fall on. */

/**
 * Made at the first cut that needs it: a segmenter maps ICU's break rules into the process
 * (about 1 MB of RSS), which a bot at rest, or one whose cuts all fall on whitespace, never uses.
 */
let segmenter: Intl.Segmenter | undefined;

/** How much text either side of a cut is segmented (an emoji ZWJ sequence fits easily). */
export const GRAPHEME_WINDOW = 32;

/**
 * The largest grapheme-cluster boundary at or before `position` and after `floor`, in `text`
 * whose first character is at absolute `offset`. Falls back to not splitting a surrogate pair
 * when a cluster is longer than the window (combining-mark floods).
 */
export function graphemeBoundaryAtOrBefore(
  text: string,
  options: { offset: number; position: number; floor: number },
): number {
  const { offset, position, floor } = options;
  let windowStart = Math.max(floor, position - GRAPHEME_WINDOW, offset);
  // Flags pair regional indicators counted from the start of their run: segment from there.
  while (
    windowStart - 2 >= Math.max(floor, offset) &&
    isRegionalIndicatorAt(text, windowStart - 2 - offset)
  ) {
    windowStart -= 2;
  }
  const windowEnd = Math.min(offset + text.length, position + GRAPHEME_WINDOW);
  const slice = text.slice(windowStart - offset, windowEnd - offset);
  let best = -1;
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  for (const { index } of segmenter.segment(slice)) {
    const absolute = windowStart + index;
    if (absolute > position) break;
    if (absolute > floor) best = absolute;
  }
  if (best !== -1) return best;
  const code = text.charCodeAt(position - offset);
  const splitsPair = code >= 0xdc00 && code <= 0xdfff;
  return splitsPair && position - 1 > floor ? position - 1 : position;
}

/** A regional indicator symbol (U+1F1E6–U+1F1FF) as a surrogate pair at `index`. */
function isRegionalIndicatorAt(text: string, index: number): boolean {
  return (
    text.charCodeAt(index) === 0xd83c &&
    (text.charCodeAt(index + 1) & 0xffe0) === 0xdde0 &&
    text.charCodeAt(index + 1) >= 0xdde6
  );
}
