/**
 * Recognisers for the inline tokens that must reach Discord byte-identical and never be split:
 * URLs and Discord's own `<…>` tokens. Shared by the humanizer (placeholder protection) and the
 * stream layer (block scanning, chunking) so both agree on where a token starts and ends.
 */

/** The longest Discord `<…>` token we look for (a slash-command mention with sub-commands). */
export const DISCORD_TOKEN_MAX_LENGTH = 128;

/**
 * A Discord token at a position: user `<@id>`/`<@!id>`, role `<@&id>`, channel `<#id>`, custom
 * emoji `<:name:id>`/`<a:name:id>`, timestamp `<t:123>`/`<t:123:R>`, slash command
 * `</name sub:id>` and guild navigation `<id:browse>`. Sticky: matches only at `lastIndex`.
 */
const DISCORD_TOKEN = new RegExp(
  String.raw`<(?:@[!&]?\d{1,25}|#\d{1,25}|a?:\w{1,64}:\d{1,25}|t:-?\d{1,20}(?::[tTdDfFRsS])?` +
    String.raw`|\/[-_\p{L}\p{N}]{1,32}(?: [-_\p{L}\p{N}]{1,32}){0,2}:\d{1,25}` +
    String.raw`|id:(?:customize|browse|guide|linked-roles))>`,
  'uy',
);

/** Characters that may follow `<` in a Discord token; anything else rules a token out at once. */
const TOKEN_SECOND_CHARACTERS = new Set(['@', '#', ':', 'a', 't', '/', 'i']);

/** `incomplete`: more text is needed to decide; `undefined`: no token starts here. */
export type TokenMatch = number | 'incomplete' | undefined;

/**
 * The length of the Discord token starting at `start` (which holds `<`). With `final` false a
 * token that may still be completing by later text answers `incomplete`.
 */
export function discordTokenLength(text: string, start: number, final: boolean): TokenMatch {
  const second = text[start + 1];
  if (second === undefined) return final ? undefined : 'incomplete';
  if (!TOKEN_SECOND_CHARACTERS.has(second)) return undefined;
  const windowEnd = Math.min(text.length, start + DISCORD_TOKEN_MAX_LENGTH);
  const close = text.indexOf('>', start + 1);
  if (close === -1 || close >= windowEnd) {
    const couldStillClose = !final && text.length < start + DISCORD_TOKEN_MAX_LENGTH;
    // Only a slash-command mention (`</name sub:id>`) may contain spaces.
    const ruledOut = second === '/' ? /[\n<]/ : /[\s<]/;
    return couldStillClose && !ruledOut.test(text.slice(start + 1, windowEnd))
      ? 'incomplete'
      : undefined;
  }
  DISCORD_TOKEN.lastIndex = start;
  const match = DISCORD_TOKEN.exec(text);
  return match !== null && match.index === start ? match[0].length : undefined;
}

/** Characters that end a bare URL: whitespace, `<`, `>`, a backtick, `"`, 「」『』. */
function isUrlTerminator(code: number): boolean {
  return (
    code === 32 ||
    (code >= 9 && code <= 13) ||
    code === 60 ||
    code === 62 ||
    code === 96 ||
    code === 34 ||
    (code >= 0x300c && code <= 0x300f)
  );
}
/** Trailing characters that belong to the sentence or markdown around a URL, not to it. */
const URL_TRAILING_PUNCTUATION = new Set([
  '.',
  ',',
  ':',
  ';',
  '!',
  '?',
  "'",
  '’',
  '”',
  '*',
  '_',
  '~',
  '|',
]);

/** True when a URL scheme (`http://` or `https://`) starts at `start` on a word boundary. */
export function startsUrl(text: string, start: number): boolean {
  if (start > 0 && /[\p{L}\p{N}_]/u.test(text[start - 1] ?? '')) return false;
  return hasUrlScheme(text, start);
}

/** True when `http://` or `https://` (any case) starts at `start`. */
export function hasUrlScheme(text: string, start: number): boolean {
  const code = text.charCodeAt(start);
  if (code !== 104 && code !== 72) return false; // h or H
  const head = text.slice(start, start + 8).toLowerCase();
  return head.startsWith('http://') || head === 'https://';
}

/** How much text must follow a possible `h` before `startsUrl` can answer. */
export const URL_SCHEME_LOOKAHEAD = 8;

export type UrlMatch =
  | { kind: 'url'; length: number }
  /** More text is needed to find the end. */
  | { kind: 'incomplete' }
  /** No terminator within `maxLength`: too long to treat as one unsplittable token. */
  | { kind: 'too-long' };

/**
 * The extent of the URL starting at `start` (a scheme, see `startsUrl`). A URL ends at
 * whitespace, `<`, `>`, a backtick, a quote, or a `)`/`]` it did not open (so `[x](https://a.b)`
 * and `(see https://a.b)` end before the bracket); trailing sentence punctuation is left out.
 */
export function urlExtent(
  text: string,
  options: { start: number; final: boolean; maxLength: number },
): UrlMatch {
  const { start, final, maxLength } = options;
  let parentheses = 0;
  let brackets = 0;
  let end = start;
  const limit = Math.min(text.length, start + maxLength);
  for (; end < limit; end += 1) {
    const code = text.charCodeAt(end);
    if (isUrlTerminator(code)) break;
    if (code === 40)
      parentheses += 1; // (
    else if (code === 91)
      brackets += 1; // [
    else if (code === 41) {
      if (parentheses === 0) break;
      parentheses -= 1;
    } else if (code === 93) {
      if (brackets === 0) break;
      brackets -= 1;
    }
  }
  if (end === limit) {
    // No terminator seen: either the window is exhausted or the text is.
    if (limit === start + maxLength) return { kind: 'too-long' };
    if (!final) return { kind: 'incomplete' };
  }
  while (end > start && URL_TRAILING_PUNCTUATION.has(text[end - 1] ?? '')) end -= 1;
  return { kind: 'url', length: end - start };
}
