import { Routes, SnowflakeUtil, type APIMessage, type REST } from 'discord.js';
import type { Clock } from '../../core/clock.ts';
import { classify } from './discord-message-target.ts';
import { TargetWriteError } from './message-target.ts';

/**
 * How far Discord's clock may run behind ours: a message the lost execute made is looked for
 * from this long before the execute was first sent.
 */
const CLOCK_SKEW_MS = 5_000;
/** Messages read back when looking for one (a lost execute is among the channel's newest). */
const READ_BACK_LIMIT = 50;

export const CHANNEL_READ_ROUTE = 'GET /channels/:id/messages';

/** What was sent under one nonce whose answer never came: any of these may have been posted. */
interface Unsettled {
  /** The id a message posted at the first attempt's time (less the skew) is above. */
  after: string;
  webhookIds: Set<string>;
  contents: Set<string>;
}

/**
 * Webhook executes whose outcome is unknown. Discord's execute-webhook takes no nonce, so a
 * create retried after a 5xx or a lost connection — which may have been posted all the same —
 * would post twice. Instead, before such a create is sent again, the channel is read for it: a
 * message of the same webhook, with the same content, newer than the first attempt, and not
 * one this target already knows. Found, it is the create's message; not found, the create is
 * sent again. A message Discord only shows after the read can still appear twice: the read
 * narrows the window to Discord's own delay, it cannot close it.
 */
export class UnsettledExecutes {
  readonly #rest: REST;
  readonly #clock: Clock;
  readonly #channelId: string;
  /** By the create's nonce. */
  readonly #byNonce = new Map<string, Unsettled>();

  /** `rest`: the bot's own, for the channel read; `channelId`: where the messages appear. */
  constructor(options: { rest: REST; clock: Clock; channelId: string }) {
    this.#rest = options.rest;
    this.#clock = options.clock;
    this.#channelId = options.channelId;
  }

  /** The moment a create is first sent: the earliest its message can be (kept until settled). */
  sending(nonce: string): void {
    if (this.#byNonce.has(nonce)) return;
    const after = SnowflakeUtil.generate({ timestamp: this.#clock.now() - CLOCK_SKEW_MS });
    this.#byNonce.set(nonce, {
      after: after.toString(),
      webhookIds: new Set(),
      contents: new Set(),
    });
  }

  /** The create got no answer: this content may stand in the channel under this webhook. */
  lost(nonce: string, attempt: { webhookId: string; content: string }): void {
    const unsettled = this.#byNonce.get(nonce);
    unsettled?.webhookIds.add(attempt.webhookId);
    unsettled?.contents.add(attempt.content);
  }

  /** The create's outcome is known (its message id came back, or it was found). */
  settled(nonce: string): void {
    this.#byNonce.delete(nonce);
  }

  /**
   * Before a create is sent again: the id of the message an earlier attempt posted, if one
   * did. Undefined when none is found (or no attempt was lost). A read Discord refuses means
   * the outcome cannot be known: the create fails for good rather than risk a second post.
   */
  async find(nonce: string, known: ReadonlySet<string>): Promise<string | undefined> {
    const unsettled = this.#byNonce.get(nonce);
    if (unsettled === undefined || unsettled.contents.size === 0) return undefined;
    let messages: APIMessage[];
    try {
      messages = (await this.#rest.get(Routes.channelMessages(this.#channelId), {
        query: new URLSearchParams({ after: unsettled.after, limit: String(READ_BACK_LIMIT) }),
      })) as APIMessage[];
    } catch (error) {
      const failure = classify(error, { route: CHANNEL_READ_ROUTE, channelId: this.#channelId });
      if (failure.retryable) throw failure;
      throw new TargetWriteError('other', 'a lost webhook write could not be looked for', {
        route: CHANNEL_READ_ROUTE,
        channelId: this.#channelId,
        cause: failure,
      });
    }
    const found = messages
      .filter(
        (message) =>
          message.webhook_id !== undefined &&
          unsettled.webhookIds.has(message.webhook_id) &&
          unsettled.contents.has(message.content) &&
          !known.has(message.id),
      )
      .sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1))[0];
    return found?.id;
  }
}
