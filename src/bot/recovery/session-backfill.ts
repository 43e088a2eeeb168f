import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import type { ActiveChannel, ChannelActivity } from './channel-activity.ts';
import { compareSnowflakes } from '../client/inbound-message.ts';

/** Channels active this recently are backfilled after a fresh gateway session. */
export const BACKFILL_ACTIVE_WITHIN_MS = 10 * 60_000;
/** At most this many channels per backfill, most recently active first. */
export const BACKFILL_MAX_CHANNELS = 20;
/** At most this many messages per channel (one request: Discord's page is 100 at most). */
export const BACKFILL_MESSAGES_PER_CHANNEL = 50;
/**
 * A channel whose read failed in a way that may pass (a 5xx, a reset, the network) is read again
 * after these waits, from the same mark: a new session often meets a Discord that is itself
 * recovering, and a channel skipped here is a member's mention never seen.
 */
export const BACKFILL_RETRY_DELAYS_MS: readonly number[] = [1_000, 3_000, 10_000, 30_000];

export interface SessionBackfillOptions<Message extends { id: string }> {
  activity: ChannelActivity;
  /** Messages of a channel after `afterId`, at most `limit`, in any order. */
  fetchAfter(channelId: string, afterId: string, limit: number): Promise<Message[]>;
  /**
   * Channels Discord says were active lately that this process has no mark for (it never saw
   * them before it stopped): read from the time the window opens. Default: none.
   */
  discover?: (options: { withinMs: number; known: ReadonlySet<string> }) => ActiveChannel[];
  /**
   * The message a reply of the bot's answers (its reference), undefined for any other message: a
   * message the same read shows answered is not delivered again — what stands in the channel
   * is the truth even where the database does not know it (a restored backup, a new database).
   */
  repliedTo?: (message: Message) => string | undefined;
  /** The normal message path (the router's claim makes a duplicate harmless). */
  deliver(message: Message): Promise<void>;
  /** True when Discord says the channel is gone or closed to the bot: no later read helps. */
  isPermanent(error: unknown): boolean;
  clock: Clock;
  /** Aborted at shutdown: no more waiting to read a channel again. */
  signal?: AbortSignal | undefined;
  logger: Logger;
}

/**
 * After a gateway session that could not be resumed, messages sent while the bot was away are
 * never dispatched. For each recently active channel this fetches what came after the last
 * message seen and feeds it, oldest first, through the normal message path — all but what a
 * reply of the bot's in the same read answers. Bounded in channels
 * and messages. A channel whose read fails for a moment is read again (BACKFILL_RETRY_DELAYS_MS);
 * one Discord says is gone is skipped. Runs one at a time.
 */
export class SessionBackfill<Message extends { id: string }> {
  readonly #options: SessionBackfillOptions<Message>;
  #running: Promise<void> = Promise.resolve();

  constructor(options: SessionBackfillOptions<Message>) {
    this.#options = options;
  }

  /** Queues a backfill behind any running one; resolves when it is done. */
  run(): Promise<void> {
    this.#running = this.#running.then(() => this.#backfill());
    return this.#running;
  }

  async #backfill(): Promise<void> {
    const { logger, clock, signal } = this.#options;
    // The marks are taken now: a live message recorded meanwhile must not move a retry past
    // what was missed.
    let pending = this.#channelsToRead();
    const channels = pending.length;
    let delivered = 0;
    for (const delay of [0, ...BACKFILL_RETRY_DELAYS_MS]) {
      if (pending.length === 0) break;
      if (delay > 0) {
        const waited = await clock.sleep(delay, signal).then(
          () => true,
          () => false,
        );
        if (!waited) break;
      }
      const failed: ActiveChannel[] = [];
      for (const channel of pending) {
        const read = await this.#readChannel(channel);
        if (read === 'again') failed.push(channel);
        else delivered += read;
      }
      pending = failed;
    }
    if (pending.length > 0) {
      logger.warn(
        { channelIds: pending.map((channel) => channel.channelId) },
        'gave up reading channels after a fresh gateway session: their messages of that time are not answered',
      );
    }
    // A start or a new session that found nothing to read is no news.
    const level = delivered > 0 ? 'info' : 'debug';
    logger[level](
      { channels, messages: delivered },
      'backfilled messages sent while the gateway was away',
    );
  }

  /** The recently active channels, most recent first, bounded: marked ones and discovered ones. */
  #channelsToRead(): ActiveChannel[] {
    const { activity, discover } = this.#options;
    const withinMs = BACKFILL_ACTIVE_WITHIN_MS;
    const marked = activity.recent({ withinMs, limit: BACKFILL_MAX_CHANNELS });
    const known = new Set(marked.map((channel) => channel.channelId));
    const discovered = discover?.({ withinMs, known }) ?? [];
    return [...marked, ...discovered]
      .sort((a, b) => b.lastActivityAt - a.lastActivityAt)
      .slice(0, BACKFILL_MAX_CHANNELS);
  }

  /** Delivers a channel's missed messages: how many, or `again` when the read may succeed later. */
  async #readChannel(channel: ActiveChannel): Promise<number | 'again'> {
    const { activity, logger } = this.#options;
    let missed: Message[];
    try {
      missed = await this.#options.fetchAfter(
        channel.channelId,
        channel.lastSeenId,
        BACKFILL_MESSAGES_PER_CHANNEL,
      );
    } catch (error) {
      const permanent = this.#options.isPermanent(error);
      logger.warn(
        { err: error, channelId: channel.channelId },
        permanent
          ? 'backfill of a channel failed: it is gone or closed to the bot'
          : 'backfill of a channel failed: read again later',
      );
      return permanent ? 0 : 'again';
    }
    missed.sort((a, b) => compareSnowflakes(a.id, b.id));
    const answered = new Set(missed.map((message) => this.#options.repliedTo?.(message)));
    let delivered = 0;
    for (const message of missed) {
      activity.record(channel.channelId, message.id);
      if (answered.has(message.id)) continue;
      await this.#options.deliver(message);
      delivered += 1;
    }
    return delivered;
  }
}
