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
  /** Channels recorded since the last `takeChanged` (what is not yet persisted). */
  readonly #changed = new Set<string>();
  /** A channel unknown here was recorded since the last `takeChanged`. */
  #fresh = false;

  constructor(options: { clock: Clock; maxChannels: number }) {
    this.#clock = options.clock;
    this.#maxChannels = options.maxChannels;
  }

  record(channelId: string, messageId: string): void {
    const known = this.#channels.get(channelId);
    if (known === undefined) this.#fresh = true;
    this.#channels.delete(channelId);
    const lastSeenId =
      known === undefined || compareSnowflakes(messageId, known.lastSeenId) > 0
        ? messageId
        : known.lastSeenId;
    this.#channels.set(channelId, { channelId, lastSeenId, lastActivityAt: this.#clock.now() });
    this.#changed.add(channelId);
    this.#bound();
  }

  /**
   * A channel read back from an earlier process (persisted activity): known, not changed here.
   * What this process saw itself wins.
   */
  restore(channel: ActiveChannel): void {
    if (this.#channels.has(channel.channelId)) return;
    this.#channels.set(channel.channelId, { ...channel });
    this.#bound();
  }

  forget(channelId: string): void {
    this.#channels.delete(channelId);
    this.#changed.delete(channelId);
  }

  /** The channels recorded since the last call (to persist them), and starts afresh. */
  /**
   * Whether a channel unknown here was recorded since the last `takeChanged`: the one kind of
   * change a lost write cannot afford (a known channel's older mark only reads back more).
   */
  get hasFresh(): boolean {
    return this.#fresh;
  }

  takeChanged(): ActiveChannel[] {
    this.#fresh = false;
    const changed = [...this.#changed]
      .map((channelId) => this.#channels.get(channelId))
      .filter((channel): channel is ActiveChannel => channel !== undefined);
    this.#changed.clear();
    return changed;
  }

  /** Channels whose persisting failed: changed again, for the next attempt. */
  markChanged(channelIds: readonly string[]): void {
    for (const channelId of channelIds) {
      if (this.#channels.has(channelId)) this.#changed.add(channelId);
    }
  }

  #bound(): void {
    if (this.#channels.size <= this.#maxChannels) return;
    const oldest = this.#channels.keys().next().value;
    if (oldest !== undefined) this.forget(oldest);
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
