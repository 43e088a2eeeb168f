import type { Clock } from '../../core/clock.ts';
import { compareSnowflakes } from '../client/inbound-message.ts';

/** A channel with recent activity and the newest message id this process saw in it. */
export interface ActiveChannel {
  channelId: string;
  lastSeenId: string;
  lastActivityAt: number;
}

/**
 * The newest message id seen per channel, and when: what a backfill after a fresh gateway
 * session starts from. Bounded: beyond `maxChannels` the least recently active is forgotten.
 */
export class ChannelActivity {
  readonly #clock: Clock;
  readonly #maxChannels: number;
  /** Least recently active first (a Map keeps insertion order; a record moves to the end). */
  readonly #channels = new Map<string, ActiveChannel>();

  constructor(options: { clock: Clock; maxChannels: number }) {
    this.#clock = options.clock;
    this.#maxChannels = options.maxChannels;
  }

  record(channelId: string, messageId: string): void {
    const known = this.#channels.get(channelId);
    this.#channels.delete(channelId);
    const lastSeenId =
      known === undefined || compareSnowflakes(messageId, known.lastSeenId) > 0
        ? messageId
        : known.lastSeenId;
    this.#channels.set(channelId, { channelId, lastSeenId, lastActivityAt: this.#clock.now() });
    if (this.#channels.size > this.#maxChannels) {
      const oldest = this.#channels.keys().next().value;
      if (oldest !== undefined) this.#channels.delete(oldest);
    }
  }

  forget(channelId: string): void {
    this.#channels.delete(channelId);
  }

  /** Channels active within `withinMs`, most recently active first, at most `limit`. */
  recent(options: { withinMs: number; limit: number }): ActiveChannel[] {
    const since = this.#clock.now() - options.withinMs;
    return [...this.#channels.values()]
      .reverse()
      .filter((channel) => channel.lastActivityAt >= since)
      .slice(0, options.limit);
  }
}
