import type { Clock } from '../../../src/core/clock.ts';

/** 2015-01-01T00:00:00Z: the first second of Discord's snowflake epoch. */
export const DISCORD_EPOCH_MS = 1_420_070_400_000;
const MAX_INCREMENT = 0xfff;

/**
 * Real snowflakes (timestamp, worker, process, increment), so ids are 17–19 digits like
 * Discord's: discord.js keys its rate-limit major parameter on `\d{17,19}` and derives message
 * age from the id. Monotonic even when the clock stands still or steps back.
 */
export class SnowflakeFactory {
  readonly #clock: Clock;
  #lastTimestamp = 0;
  #increment = 0;
  #backdatedIncrement = 0;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** A new id; `at` (epoch ms) backdates it, e.g. for a message created "two hours ago". */
  next(at?: number): string {
    if (at !== undefined) {
      this.#backdatedIncrement = (this.#backdatedIncrement + 1) & MAX_INCREMENT;
      return compose(at, this.#backdatedIncrement);
    }
    let timestamp = Math.max(this.#clock.now(), this.#lastTimestamp);
    if (timestamp === this.#lastTimestamp) {
      this.#increment += 1;
      if (this.#increment > MAX_INCREMENT) {
        timestamp += 1;
        this.#increment = 0;
      }
    } else {
      this.#increment = 0;
    }
    this.#lastTimestamp = timestamp;
    return compose(timestamp, this.#increment);
  }

  /**
   * A new id that shard `shard[0]` of `shard[1]` owns (`(id >> 22) % num_shards`): its time is
   * moved forward by less than `num_shards` ms, and later ids stay above it.
   */
  nextOnShard(shard: readonly [number, number]): string {
    const [shardId, shardCount] = shard;
    let timestamp = Math.max(this.#clock.now(), this.#lastTimestamp + 1);
    const offset =
      (((shardId - (timestamp - DISCORD_EPOCH_MS)) % shardCount) + shardCount) % shardCount;
    timestamp += offset;
    this.#lastTimestamp = timestamp;
    this.#increment = 0;
    return compose(timestamp, 0);
  }
}

function compose(timestamp: number, increment: number): string {
  const worker = 1n;
  const process = 1n;
  const value =
    (BigInt(timestamp - DISCORD_EPOCH_MS) << 22n) |
    (worker << 17n) |
    (process << 12n) |
    BigInt(increment);
  return value.toString();
}

/** The creation time encoded in a snowflake, in epoch ms. */
export function snowflakeTimestamp(id: string): number {
  return Number(BigInt(id) >> 22n) + DISCORD_EPOCH_MS;
}
