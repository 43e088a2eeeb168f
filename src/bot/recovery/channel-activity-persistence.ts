import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import {
  recentChannelActivity,
  saveChannelActivity,
} from '../../db/channel-activity-repository.ts';
import type { Database } from '../../db/database.ts';
import type { ChannelActivity } from './channel-activity.ts';
import { BACKFILL_ACTIVE_WITHIN_MS, BACKFILL_MAX_CHANNELS } from './session-backfill.ts';

/**
 * How often the channels' last message seen is written: one statement per pass however busy
 * the channels are (a message costs no write of its own), and none when nothing changed.
 */
export const ACTIVITY_FLUSH_MS = 30_000;

/**
 * How soon a channel newly seen is written: a SIGKILL before its first write would leave it out
 * of the next start's read-back, and mentions sent there while the bot was down unseen. One
 * statement per tick at most, and only while new channels appear.
 */
export const NEW_CHANNEL_FLUSH_MS = 1_000;

/**
 * Keeps the channels' last message seen across restarts, so mentions sent while the process
 * was down are read back at start (Discord replays nothing to a new session). Written in
 * batches every `ACTIVITY_FLUSH_MS` and once more when shutdown begins (DiscordBot.shutdown); a SIGKILL loses at most the
 * last pass, which only makes the next start read a few messages it already handled (the
 * claims make that harmless).
 */
export class ChannelActivityPersistence {
  readonly #options: { db: Database; activity: ChannelActivity; clock: Clock; logger: Logger };
  #closed = false;

  constructor(options: { db: Database; activity: ChannelActivity; clock: Clock; logger: Logger }) {
    this.#options = options;
  }

  /** Reads back the channels active in the last ten minutes, the most recent first, bounded. */
  async restore(): Promise<number> {
    const { db, activity, clock } = this.#options;
    const channels = await recentChannelActivity(db, {
      withinMs: BACKFILL_ACTIVE_WITHIN_MS,
      limit: BACKFILL_MAX_CHANNELS,
    });
    // Oldest first, so the most recently active ends up most recent here too.
    for (const channel of [...channels].reverse()) {
      activity.restore({
        channelId: channel.channelId,
        lastSeenId: channel.lastSeenId,
        lastActivityAt: clock.now(),
      });
    }
    return channels.length;
  }

  /** Writes what changed since the last pass; a failure is logged and retried next pass. */
  async flush(): Promise<void> {
    const { db, activity, logger } = this.#options;
    const changed = activity.takeChanged();
    try {
      await saveChannelActivity(db, changed, BACKFILL_ACTIVE_WITHIN_MS);
    } catch (error) {
      activity.markChanged(changed.map((channel) => channel.channelId));
      logger.warn({ err: error, channels: changed.length }, 'could not save channel activity');
    }
  }

  /**
   * Flushes every `ACTIVITY_FLUSH_MS`, and within `NEW_CHANNEL_FLUSH_MS` of a channel newly
   * seen, until `signal` aborts or `close`.
   */
  async run(signal: AbortSignal): Promise<void> {
    const { clock, activity } = this.#options;
    let lastFlush = clock.now();
    while (!signal.aborted && !this.#closed) {
      await clock.sleep(NEW_CHANNEL_FLUSH_MS, signal).catch(() => undefined);
      if (signal.aborted || this.#closed) return;
      if (!activity.hasFresh && clock.now() - lastFlush < ACTIVITY_FLUSH_MS) continue;
      lastFlush = clock.now();
      await this.flush();
    }
  }

  /**
   * The last write, when shutdown begins: messages that arrive after it are not recorded as
   * seen, so the next start reads them back (intake no longer takes them here).
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.flush();
  }
}
