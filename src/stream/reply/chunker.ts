import { SemanticBlockBuffer, type Block } from '../blocks/block-buffer.ts';
import { renderFenced, type FencedText } from '../blocks/fence.ts';

/** Discord's limit on a message's `content`, in UTF-16 code units. */
export const DISCORD_MESSAGE_LIMIT = 2000;

/**
 * Room kept in every chunk for the fence lines a split code block needs: a reopening line
 * (```` ``` ```` + a language of up to 24 characters + newline) and a closing line.
 */
const FENCE_ALLOWANCE = 32;

/** The smallest limit the chunker accepts (a Discord token must fit with room to spare). */
export const MINIMUM_MESSAGE_LIMIT = 200;

const NEVER = Number.POSITIVE_INFINITY;

/**
 * Splits one self-contained message text into Discord-safe messages: none over `limit`, none
 * empty or whitespace-only, split preferably at a paragraph, then a line, a sentence, a word —
 * the strongest such place in the second half of the room, else the strongest anywhere — and
 * never inside a URL, mention, custom emoji, timestamp, surrogate pair or grapheme cluster.
 * A code block split across messages is closed at the end of one and reopened with its
 * language at the start of the next.
 *
 * Text within the limit is returned trimmed, unscanned; longer text is scanned once (the same
 * incremental scanner as the block buffer, in one pass).
 */
export function chunkMessage(text: string, limit: number = DISCORD_MESSAGE_LIMIT): string[] {
  if (text.length <= limit) {
    assertLimit(limit);
    const trimmed = text.trim();
    return trimmed === '' ? [] : [trimmed];
  }
  const messages: string[] = [];
  for (const piece of splitFenced(
    { text, fenceAtStart: undefined, fenceAtEnd: undefined },
    limit,
  )) {
    const message = renderFenced(piece);
    if (/\S/.test(message)) messages.push(message);
  }
  return messages;
}

/**
 * The raw pieces `chunkMessage` renders, for callers that keep growing the last one (the
 * edit-in-place composer): each piece renders (`renderFenced`) to at most `limit` characters.
 */
export function splitFenced(slice: FencedText, limit: number): Block[] {
  assertLimit(limit);
  const buffer = new SemanticBlockBuffer(
    {
      minimumLength: { paragraph: NEVER, line: NEVER, sentence: NEVER },
      holdCap: limit - FENCE_ALLOWANCE,
    },
    slice.fenceAtStart,
  );
  return [...buffer.push(slice.text), ...buffer.finish()];
}

function assertLimit(limit: number): void {
  if (!(limit >= MINIMUM_MESSAGE_LIMIT)) {
    throw new RangeError(`message limit ${limit} is below ${MINIMUM_MESSAGE_LIMIT}`);
  }
}
