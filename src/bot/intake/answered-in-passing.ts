import { LruMap } from '../../core/lru-map.ts';
import type { AcceptedMessage } from '../intake/accepted-message.ts';

/** Messages remembered as answered in passing at most (ids are unique across channels). */
const REMEMBERED = 10_000;

/**
 * Members' messages a turn answered in passing. A turn's model sees the channel's unanswered
 * tail — members' messages before its own that no bot message followed — as questions to
 * answer. Normally nothing in that tail is still owed: intake takes a channel's messages in
 * order. Messages owed from before a restart or a fresh gateway session (handed back, left by a
 * crash, read back by a backfill) can be judged after a live message of their channel has
 * started its turn; once that turn's reply is delivered whole, they were answered in it, and
 * their own turn would answer them a second time. Such a message is settled when intake meets
 * it or its turn comes — never handed back at a shutdown; a Retry press always runs.
 */
export class AnsweredInPassing {
  /** Message id → the turn that answered it in passing. */
  readonly #answeredBy = new LruMap<string, string>(REMEMBERED);
  readonly #persist: (answered: { channelId: string; keys: readonly string[] }) => void;

  /**
   * `persist` records messages as answered in the claims ledger (in the background): a settled
   * claim, made if none exists yet, so no backfill, other process or later start answers them.
   */
  constructor(
    options: {
      persist?: (answered: { channelId: string; keys: readonly string[] }) => void;
    } = {},
  ) {
    this.#persist = options.persist ?? (() => undefined);
  }

  /**
   * A turn's reply was delivered whole: the unanswered tail it saw is answered. Those addressed
   * to the bot (what a claim may be owed for) go to the ledger now: one handed back at a
   * shutdown during the turn, or heard again after a restart, must not be answered again.
   */
  note(
    turnId: string,
    tail: { channelId: string; ids: readonly string[]; addressed: readonly string[] },
  ): void {
    for (const messageId of tail.ids) this.#answeredBy.set(messageId, turnId);
    this.settle(tail.channelId, tail.addressed);
  }

  /** Records messages as answered in the ledger (a message met again by intake, say). */
  settle(channelId: string, keys: readonly string[]): void {
    if (keys.length > 0) this.#persist({ channelId, keys });
  }

  /** Whether an earlier reply answered this message in passing (a Retry aside). */
  answered(messageId: string): boolean {
    return this.#answeredBy.has(messageId);
  }

  /** The batch split into what is still owed and what an earlier turn answered in passing. */
  split(batch: readonly AcceptedMessage[]): {
    owed: AcceptedMessage[];
    answered: { messageId: string; turnId: string }[];
  } {
    const owed: AcceptedMessage[] = [];
    const answered: { messageId: string; turnId: string }[] = [];
    for (const accepted of batch) {
      // A Retry press asks again; a scene's next character answers the same message anew.
      const again = accepted.reason === 'retry' || accepted.reason === 'scene';
      const turnId = again ? undefined : this.#answeredBy.get(accepted.message.id);
      if (turnId === undefined) owed.push(accepted);
      else answered.push({ messageId: accepted.message.id, turnId });
    }
    return { owed, answered };
  }
}
