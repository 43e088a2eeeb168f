/** rand_a of RFC 9562's UUIDv7 is 12 bits; used here as a counter within one millisecond. */
const COUNTER_LIMIT = 0x1000;

/**
 * UUIDv7 ids (RFC 9562, "method 1": a counter in rand_a) that sort in the order they were made
 * within this process, even within one millisecond or when the clock steps back. Conversation
 * turns are ordered by `created_at, id`; PGlite's `now()` ties turns stored in one millisecond,
 * and a random (v4) id then put a member's turns out of order.
 */
export class TimeOrderedIds {
  readonly #now: () => number;
  readonly #random: (bytes: Uint8Array) => void;
  #lastMs = -1;
  #counter = 0;

  constructor(options: { now?: () => number; random?: (bytes: Uint8Array) => void } = {}) {
    this.#now = options.now ?? Date.now;
    this.#random = options.random ?? ((bytes) => void crypto.getRandomValues(bytes));
  }

  next(): string {
    const now = this.#now();
    if (now > this.#lastMs) {
      this.#lastMs = now;
      this.#counter = 0;
    } else if (this.#counter + 1 < COUNTER_LIMIT) {
      this.#counter += 1;
    } else {
      // 4096 ids in one millisecond: borrow the next one (still unique and in order).
      this.#lastMs += 1;
      this.#counter = 0;
    }
    const bytes = new Uint8Array(16);
    this.#random(bytes);
    let timestamp = this.#lastMs;
    for (let index = 5; index >= 0; index -= 1) {
      bytes[index] = timestamp % 256;
      timestamp = Math.floor(timestamp / 256);
    }
    bytes[6] = 0x70 | (this.#counter >> 8);
    bytes[7] = this.#counter & 0xff;
    bytes[8] = 0x80 | ((bytes[8] ?? 0) & 0x3f);
    const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }
}

const processIds = new TimeOrderedIds();

/** The next id of this process's sequence (see {@link TimeOrderedIds}). */
export function timeOrderedId(): string {
  return processIds.next();
}
