import type { Logger } from '../../core/logger.ts';

/** Where a turn records what its request carries (the claims ledger: `carryClaims`). */
export interface ClaimCarrier {
  /** Records the keys as carried by the reply to `replyTo`; returns those whose claim it made. */
  carry(carried: {
    keys: readonly string[];
    channelId: string;
    replyTo: string;
  }): Promise<string[]>;
  /** The reply no longer carries these; `made` are claims `carry` made, removed again. */
  uncarry(uncarried: {
    keys: readonly string[];
    made: readonly string[];
    replyTo: string;
  }): Promise<void>;
}

/**
 * The members' messages owed from before a restart or a fresh gateway session that a turn's
 * request shows the model as unanswered (its channel's tail). Delivered whole, the reply answers
 * them in passing (AnsweredInPassing); but a process killed after delivering it and before
 * writing its end would leave them owed, and the next process would answer them again. So each
 * attempt's carried messages are recorded before its stream (and so before the reply's first
 * write): recovery then finds the reply that covers them. Nothing is written for a request that
 * carries none — a turn's usual case.
 */
export class CarriedTail {
  readonly #carrier: ClaimCarrier | undefined;
  readonly #where: { channelId: string; replyTo: string };
  readonly #logger: Logger;
  #carried: readonly string[] = [];
  readonly #made = new Set<string>();

  constructor(options: {
    carrier: ClaimCarrier | undefined;
    channelId: string;
    /** The message the turn's reply answers. */
    replyTo: string;
    logger: Logger;
  }) {
    this.#carrier = options.carrier;
    this.#where = { channelId: options.channelId, replyTo: options.replyTo };
    this.#logger = options.logger;
  }

  /**
   * Before an attempt's stream: what its request carries, recorded. A failure is logged and the
   * turn goes on — only a crash before its end could then answer those messages again.
   */
  async carry(keys: readonly string[]): Promise<void> {
    const carrier = this.#carrier;
    if (carrier === undefined) return;
    const now = new Set(keys);
    const before = new Set(this.#carried);
    const dropped = this.#carried.filter((key) => !now.has(key));
    const added = keys.filter((key) => !before.has(key));
    if (dropped.length === 0 && added.length === 0) return;
    try {
      if (dropped.length > 0) {
        const made = dropped.filter((key) => this.#made.has(key));
        await carrier.uncarry({ keys: dropped, made, replyTo: this.#where.replyTo });
        for (const key of made) this.#made.delete(key);
      }
      const made = added.length === 0 ? [] : await carrier.carry({ ...this.#where, keys: added });
      for (const key of made) this.#made.add(key);
      this.#carried = [...keys];
      this.#logger.debug({ carried: keys }, 'owed messages this reply carries: recorded');
    } catch (error) {
      this.#logger.warn(
        { err: error, messageIds: keys },
        'could not record the owed messages a reply carries: a crash before its end may answer them again',
      );
    }
  }

  /**
   * The claims this turn made for messages no process had claimed: settled with its batch when
   * it ends (answered in passing, or told with the batch's failure or stop).
   */
  get made(): string[] {
    return [...this.#made];
  }
}
