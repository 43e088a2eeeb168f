import type { Client, Message } from 'discord.js';
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import { ChannelActivity } from './channel-activity.ts';
import { SessionBackfill } from './session-backfill.ts';

/** Channels whose last message id is remembered (the least recently active go first). */
const TRACKED_CHANNELS = 5_000;

/**
 * Wires the backfill to a ready client: every message seen records its channel's last id; every
 * later fresh gateway session (READY, not RESUMED — Discord replays nothing then) backfills the
 * recently active channels through `deliver`, the router's normal path.
 */
export function attachSessionBackfill(options: {
  client: Client;
  clock: Clock;
  logger: Logger;
  deliver: (message: Message) => Promise<void>;
}): SessionBackfill<Message> {
  const { client } = options;
  const activity = new ChannelActivity({ clock: options.clock, maxChannels: TRACKED_CHANNELS });
  const backfill = new SessionBackfill<Message>({
    activity,
    fetchAfter: async (channelId, afterId, limit) => {
      const channel = await client.channels.fetch(channelId);
      if (channel === null || !channel.isTextBased()) return [];
      return [...(await channel.messages.fetch({ after: afterId, limit })).values()];
    },
    deliver: options.deliver,
    logger: options.logger,
  });
  client.on('messageCreate', (message) => activity.record(message.channelId, message.id));
  client.on('channelDelete', (channel) => activity.forget(channel.id));
  // Attached once the client is ready, after every shard's first session: each READY from here
  // on is a new session, which Discord replays nothing to.
  client.on('shardReady', () => void backfill.run());
  return backfill;
}
