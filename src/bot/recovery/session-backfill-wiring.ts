import { SnowflakeUtil, type Client, type Message } from 'discord.js';
import { DEFAULT_CACHE_LIMITS } from '../../core/cache-limits.ts';
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import type { Database } from '../../db/database.ts';
import { isGoneOrClosed } from '../delivery/discord-message-target.ts';
import { ChannelActivity, type ActiveChannel } from './channel-activity.ts';
import { ChannelActivityPersistence } from './channel-activity-persistence.ts';
import { BACKFILL_ACTIVE_WITHIN_MS, SessionBackfill } from './session-backfill.ts';

/**
 * Wires the backfill to a ready client: every message seen records its channel's last id
 * (persisted in batches); at start, the channels active in the last ten minutes are read back
 * and backfilled — mentions sent while the process was down — and so is every later fresh
 * gateway session (READY, not RESUMED — Discord replays nothing then), through `deliver`, the
 * router's normal path. Only messages younger than ten minutes are delivered: older ones are
 * past the promise, as for recovered claims.
 */
export function attachSessionBackfill(options: {
  client: Client;
  /** Channels whose last message id is remembered, the least recently active going first (CACHE_CHANNELS). */
  trackedChannels?: number;
  clock: Clock;
  logger: Logger;
  /** Where channel activity is kept across restarts (none: only this session's). */
  persist?: {
    db: Database;
    /** Aborted at shutdown: the periodic writes end. */
    shutdown: AbortSignal;
  };
  deliver: (message: Message) => Promise<void>;
}): { backfill: SessionBackfill<Message>; persistence: ChannelActivityPersistence | undefined } {
  const { client, clock, logger, persist } = options;
  const activity = new ChannelActivity({
    clock,
    maxChannels: options.trackedChannels ?? DEFAULT_CACHE_LIMITS.channels,
  });
  const backfill = new SessionBackfill<Message>({
    activity,
    fetchAfter: async (channelId, afterId, limit) => {
      const channel = await client.channels.fetch(channelId);
      if (channel === null || !channel.isTextBased()) return [];
      const since = clock.now() - BACKFILL_ACTIVE_WITHIN_MS;
      // Not cached, as every read of a channel's messages (see channelHistory in bot-assembly.ts).
      const messages = await channel.messages.fetch({ after: afterId, limit, cache: false });
      return [...messages.values()].filter((message) => message.createdTimestamp >= since);
    },
    discover: ({ withinMs, known }) =>
      unmarkedActiveChannels(client, clock.now() - withinMs, known),
    repliedTo: (message) =>
      message.author.id === client.user?.id ? message.reference?.messageId : undefined,
    deliver: options.deliver,
    isPermanent: isGoneOrClosed,
    clock,
    signal: persist?.shutdown,
    logger: options.logger,
  });
  client.on('messageCreate', (message) => activity.record(message.channelId, message.id));
  client.on('channelDelete', (channel) => activity.forget(channel.id));
  // Attached once the client is ready, after every shard's first session: each READY from here
  // on is a new session, which Discord replays nothing to.
  client.on('shardReady', () => void backfill.run());
  if (persist === undefined) return { backfill, persistence: undefined };
  const persistence = new ChannelActivityPersistence({ db: persist.db, activity, clock, logger });
  void persistence.run(persist.shutdown);
  // Always read at start: a channel this process never saw is found by its last message.
  void persistence.restore().then(
    () => backfill.run(),
    (error: unknown) => {
      logger.warn({ err: error }, 'could not read back channel activity');
      return backfill.run();
    },
  );
  return { backfill, persistence };
}

/**
 * Text channels whose last message (as Discord told this session) is younger than `since` and
 * which carry no mark: a process that stopped before it saw them leaves none, and Discord
 * replays nothing. They are read from `since` on.
 */
function unmarkedActiveChannels(
  client: Client,
  since: number,
  known: ReadonlySet<string>,
): ActiveChannel[] {
  const from = SnowflakeUtil.generate({ timestamp: since }).toString();
  const active: ActiveChannel[] = [];
  for (const channel of client.channels.cache.values()) {
    if (known.has(channel.id) || !channel.isTextBased() || !('lastMessageId' in channel)) continue;
    const last = channel.lastMessageId;
    if (last === null || last === undefined) continue;
    const lastActivityAt = SnowflakeUtil.timestampFrom(last);
    if (lastActivityAt >= since) {
      active.push({ channelId: channel.id, lastSeenId: from, lastActivityAt });
    }
  }
  return active;
}
