import { systemClock, type Clock } from '../../core/clock.ts';
import type { TurnStart } from '../../db/turn-start-repository.ts';

/** What a turn's start read is of: it depends on nothing else. */
export interface TurnStartKey {
  channelId: string;
  scopeId: string;
  /** The member whose memories the turn brings. */
  authorId: string;
  /** The character that speaks (its own memories); undefined: the bot itself. */
  characterId: string | undefined;
}

/** Reads begun and not yet taken, at most (each lives for a few milliseconds). */
const PREFETCHES_KEPT = 256;
/**
 * Reads on their way at once, at most: a burst of mentions in idle channels must not queue a
 * read per message ahead of every message's rate-limit and claim round trips.
 */
const PREFETCHES_IN_FLIGHT = 4;
/**
 * How long no read is begun after another process won the claim of a message this one heard:
 * processes that all hear every message (unsharded) would each read for every message, all but
 * one for nothing.
 */
export const PREFETCH_PAUSE_AFTER_LOST_CLAIM_MS = 5 * 60_000;

/** A read begun by intake, as a turn takes it. */
export interface PrefetchedStart {
  key: TurnStartKey;
  /** Undefined when the read failed: the turn reads again, with its own outage handling. */
  read: Promise<TurnStart | undefined>;
}

/**
 * A turn's one start read (`turnStartOf`: reset marker, summary, memories, stored turns), begun
 * by intake as soon as it knows a message will probably get a turn, so that it runs beside the
 * rate-limit and claim round trips instead of after them.
 *
 * A prefetched read is used only when it is the read the turn would make at its start:
 * - it was begun while the channel had no turn live or waiting (intake checks; else none is
 *   begun), and no other turn of the channel has started since (every turn start takes the
 *   channel's prefetches, used or not): a turn in between would have stored a reply it misses;
 * - the turn answers that one message, with the same scope, author and speaker.
 * Otherwise the turn reads as before. At most PREFETCHES_IN_FLIGHT reads are on their way at
 * once; the bot uses none with the embedded database, whose queries run on this thread one after
 * another (there is no round trip to overlap, only the order of the work to change). What else
 * may change the channel's rows in the few milliseconds between (a /reset, an edit) races the
 * read just as it races a read made later. Where processes share the messages (unsharded, each
 * hearing every one), a lost claim pauses the reads (`lostClaim`); a sharded or single process
 * hears each message alone and seldom loses one.
 */
export class TurnStartPrefetch {
  readonly #read: (key: TurnStartKey) => Promise<TurnStart>;
  readonly #clock: Clock;
  readonly #pending = new Map<string, PrefetchedStart>();
  #inFlight = 0;
  #pausedUntil = Number.NEGATIVE_INFINITY;

  constructor(read: (key: TurnStartKey) => Promise<TurnStart>, clock: Clock = systemClock) {
    this.#read = read;
    this.#clock = clock;
  }

  /** Begins the read for a message (one per message; a second call is ignored). */
  begin(messageId: string, key: TurnStartKey): void {
    if (this.#pending.has(messageId) || this.#clock.now() < this.#pausedUntil) return;
    if (this.#pending.size >= PREFETCHES_KEPT || this.#inFlight >= PREFETCHES_IN_FLIGHT) return;
    this.#inFlight += 1;
    const read = this.#read(key).then(
      (start) => start,
      () => undefined,
    );
    void read.finally(() => {
      this.#inFlight -= 1;
    });
    this.#pending.set(messageId, { key: { ...key }, read });
  }

  /**
   * Another process claimed a message this one heard: the processes share the messages, and no
   * read is begun for PREFETCH_PAUSE_AFTER_LOST_CLAIM_MS (each lost claim extends it).
   */
  lostClaim(): void {
    this.#pausedUntil = this.#clock.now() + PREFETCH_PAUSE_AFTER_LOST_CLAIM_MS;
  }

  /** The message got no turn (refused, claimed elsewhere): its read is let go. */
  drop(messageId: string): void {
    this.#pending.delete(messageId);
  }

  /**
   * A turn of the channel starts: every read begun for the channel is taken; the one begun for
   * this turn's single message is answered, for {@link prefetchedRead} to judge.
   */
  take(channelId: string, messageIds: readonly string[]): PrefetchedStart | undefined {
    let found: PrefetchedStart | undefined;
    for (const [messageId, prefetch] of this.#pending) {
      if (prefetch.key.channelId !== channelId) continue;
      this.#pending.delete(messageId);
      if (messageIds.length === 1 && messageId === messageIds[0]) found = prefetch;
    }
    return found;
  }

  /** Reads begun and not yet taken or dropped. */
  get size(): number {
    return this.#pending.size;
  }
}

/** The prefetched read when it is of `key` (what the turn would read now); else undefined. */
export function prefetchedRead(
  prefetched: PrefetchedStart | undefined,
  key: TurnStartKey,
): Promise<TurnStart | undefined> | undefined {
  return prefetched !== undefined && sameKey(prefetched.key, key) ? prefetched.read : undefined;
}

function sameKey(a: TurnStartKey, b: TurnStartKey): boolean {
  return (
    a.channelId === b.channelId &&
    a.scopeId === b.scopeId &&
    a.authorId === b.authorId &&
    a.characterId === b.characterId
  );
}
