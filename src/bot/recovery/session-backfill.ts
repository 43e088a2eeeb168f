import type { Logger } from '../../core/logger.ts';
import type { ChannelActivity } from './channel-activity.ts';
import { compareSnowflakes } from '../client/inbound-message.ts';

/** Channels active this recently are backfilled after a fresh gateway session. */
export const BACKFILL_ACTIVE_WITHIN_MS = 10 * 60_000;
/** At most this many channels per backfill, most recently active first. */
export const BACKFILL_MAX_CHANNELS = 20;
/** At most this many messages per channel (one request: Discord's page is 100 at most). */
export const BACKFILL_MESSAGES_PER_CHANNEL = 50;

export interface SessionBackfillOptions<Message extends { id: string }> {
  activity: ChannelActivity;
  /** Messages of a channel after `afterId`, at most `limit`, in any order. */
  fetchAfter(channelId: string, afterId: string, limit: number): Promise<Message[]>;
  /** The normal message path (the router's claim makes a duplicate harmless). */
  deliver(message: Message): Promise<void>;
  logger: Logger;
}

/**
 * After a gateway session that could not be resumed, messages sent while the bot was away are
 * never dispatched. For each recently active channel this fetches what came after the last
 * message seen and feeds it, oldest first, through the normal message path. Bounded in channels
 * and messages; a channel that fails is logged and skipped. Runs one at a time.
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
    const { activity, logger } = this.#options;
    const channels = activity.recent({
      withinMs: BACKFILL_ACTIVE_WITHIN_MS,
      limit: BACKFILL_MAX_CHANNELS,
    });
    let delivered = 0;
    for (const channel of channels) {
      try {
        const missed = await this.#options.fetchAfter(
          channel.channelId,
          channel.lastSeenId,
          BACKFILL_MESSAGES_PER_CHANNEL,
        );
        missed.sort((a, b) => compareSnowflakes(a.id, b.id));
        for (const message of missed) {
          activity.record(channel.channelId, message.id);
          await this.#options.deliver(message);
          delivered += 1;
        }
      } catch (error) {
        logger.warn({ err: error, channelId: channel.channelId }, 'backfill of a channel failed');
      }
    }
    logger.info(
      { channels: channels.length, messages: delivered },
      'backfilled messages sent while the gateway was away',
    );
  }
}
