import type { IIdentifyThrottler } from 'discord.js';
import type { Clock } from '../../core/clock.ts';
import { IDENTIFY_WINDOW_MS } from './identify-gate.ts';
import { identifyKey } from './shard-plan.ts';

/**
 * Added to Discord's 5 s: the slot is stamped by the database, the IDENTIFY reaches Discord a
 * round trip later, and that delay varies (discord.js's own throttler adds up to 1.5 s at random).
 */
export const IDENTIFY_MARGIN_MS = 500;

/** Where the IDENTIFY slots live: shared by every process of the bot (PostgreSQL). */
export interface IdentifySlots {
  /** 0 when this process took `key` for the next window; else how long until it is free. */
  take(key: number, windowMs: number): Promise<number>;
}

/**
 * discord.js's identify throttler (`ws.buildIdentifyThrottler`), shared across processes and
 * hosts: a shard identifies only after taking its rate-limit key (`shard_id % max_concurrency`)
 * in the database, which holds each key for 5 s (and a margin). discord.js's own throttler paces only the
 * shards of one process; two hosts starting together would otherwise exceed max_concurrency.
 */
export class SharedIdentifyThrottler implements IIdentifyThrottler {
  readonly #slots: IdentifySlots;
  readonly #clock: Clock;
  readonly #maxConcurrency: number;
  readonly #windowMs: number;

  constructor(options: {
    slots: IdentifySlots;
    clock: Clock;
    maxConcurrency: number;
    windowMs?: number;
  }) {
    this.#slots = options.slots;
    this.#clock = options.clock;
    this.#maxConcurrency = Math.max(1, options.maxConcurrency);
    this.#windowMs = options.windowMs ?? IDENTIFY_WINDOW_MS + IDENTIFY_MARGIN_MS;
  }

  async waitForIdentify(shardId: number, signal: AbortSignal): Promise<void> {
    const key = identifyKey(shardId, this.#maxConcurrency);
    for (;;) {
      signal.throwIfAborted();
      const waitMs = await this.#slots.take(key, this.#windowMs);
      if (waitMs === 0) return;
      await this.#clock.sleep(waitMs, signal);
    }
  }
}
