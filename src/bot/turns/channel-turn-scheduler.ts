import type { Logger } from '../../core/logger.ts';
import { timeOrderedId } from '../../core/time-ordered-id.ts';
import type { ChannelPolicy, SubmitOutcome, TurnQueue } from '../intake/turn-queue.ts';
import type { ChannelLease, ChannelLocks } from './channel-locks.ts';

/** A batch leaving the queue: a turn, from here on known by one id everywhere. */
export interface ScheduledTurn<T> {
  /**
   * The turn's one id: the stop registry's live turn, the Stop button, the journal row (all its
   * attempts), its tool calls and its log lines.
   */
  id: string;
  channelId: string;
  /** One trigger, or several coalesced. */
  batch: readonly T[];
  /** The channel's lock, held while the turn runs. */
  lease: ChannelLease;
}

/**
 * How much one coalesced turn may take from the waiting triggers: a burst must not become one
 * request of a hundred messages that overflows the context and answers none of them well.
 */
export interface BatchLimits {
  /** Triggers answered together at most. */
  count: number;
  /** Summed weight (e.g. characters of text) at most; the first trigger always fits. */
  weight: number;
}

/** Coalesced triggers waiting in one channel at most: beyond it they are refused, and told. */
export const COALESCE_MAX_WAITING = 20;
export const DEFAULT_BATCH_LIMITS: BatchLimits = { count: 10, weight: 12_000 };

export interface ChannelTurnSchedulerOptions<T> {
  locks: ChannelLocks;
  logger: Logger;
  /** Runs one turn while it holds its channel's lease. */
  runTurn(turn: ScheduledTurn<T>): Promise<void>;
  /** Mints each turn's id (default: time-ordered UUIDs, so a turn sorts after its messages). */
  newTurnId?: () => string;
  /** The weight of a trigger against `batchLimits.weight` (default 1). */
  weigh?(trigger: T): number;
  batchLimits?: BatchLimits;
}

interface ChannelState<T> {
  pending: T[];
  policy: ChannelPolicy;
}

/**
 * Decides what happens to a trigger that arrives while its channel is busy:
 * - `coalesce` (default): it waits, and what arrived during the live turn is answered together
 *   in the next turn — at most `batchLimits` per turn (the rest waits for the one after), and at
 *   most COALESCE_MAX_WAITING waiting, beyond which it is rejected;
 * - `queue`: it waits its own turn, up to `depth` waiting; beyond that it is rejected.
 * A rejected trigger is the caller's to tell the member about. Turns of one channel run
 * strictly one after another under a ChannelLocks lease. Waiting triggers can be withdrawn
 * (a member's "never mind") or taken back whole (shutdown).
 */
export class ChannelTurnScheduler<T> implements TurnQueue<T> {
  private readonly channels = new Map<string, ChannelState<T>>();
  private idleWaiters: Array<() => void> = [];
  private readonly options: ChannelTurnSchedulerOptions<T>;
  private readonly limits: BatchLimits;
  private closed = false;

  constructor(options: ChannelTurnSchedulerOptions<T>) {
    this.options = options;
    this.limits = options.batchLimits ?? DEFAULT_BATCH_LIMITS;
  }

  /** Triggers waiting in a channel (not counting the live turn). */
  waiting(channelId: string): number {
    return this.channels.get(channelId)?.pending.length ?? 0;
  }

  /** Channels with a turn in progress, and triggers waiting behind them (for the metrics). */
  load(): { live: number; queued: number } {
    let queued = 0;
    for (const state of this.channels.values()) queued += state.pending.length;
    return { live: this.channels.size, queued };
  }

  isBusy(channelId: string): boolean {
    return this.channels.has(channelId);
  }

  /** Resolves once no channel has a live or waiting turn (graceful shutdown). */
  whenIdle(): Promise<void> {
    if (this.channels.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  submit(channelId: string, trigger: T, policy: ChannelPolicy): SubmitOutcome {
    if (this.closed) return 'rejected';
    const state = this.channels.get(channelId);
    if (state === undefined) {
      this.channels.set(channelId, { pending: [], policy });
      void this.drain(channelId, [trigger]);
      return 'started';
    }
    state.policy = policy;
    const room = policy.policy === 'coalesce' ? COALESCE_MAX_WAITING : policy.depth;
    if (state.pending.length >= room) return 'rejected';
    state.pending.push(trigger);
    return policy.policy === 'coalesce' ? 'coalesced' : 'queued';
  }

  /** Removes the waiting triggers `matches` picks (they will not run) and returns them. */
  withdraw(channelId: string, matches: (trigger: T) => boolean): T[] {
    const state = this.channels.get(channelId);
    if (state === undefined) return [];
    const withdrawn = state.pending.filter(matches);
    if (withdrawn.length > 0) state.pending = state.pending.filter((trigger) => !matches(trigger));
    return withdrawn;
  }

  /** Shutdown: takes every waiting trigger back (none of them will run) and refuses new ones. */
  close(): T[] {
    this.closed = true;
    const taken: T[] = [];
    for (const state of this.channels.values()) taken.push(...state.pending.splice(0));
    return taken;
  }

  private async drain(channelId: string, first: T[]): Promise<void> {
    let batch: T[] | undefined = first;
    while (batch !== undefined) {
      const lease = await this.options.locks.acquire(channelId);
      const id = (this.options.newTurnId ?? timeOrderedId)();
      try {
        await this.options.runTurn({ id, channelId, batch, lease });
      } catch (error) {
        this.options.logger.error(
          { err: error, channelId, turnId: id },
          'turn failed outside its own error handling',
        );
      } finally {
        lease.release();
      }
      batch = this.takeNext(channelId);
    }
  }

  private takeNext(channelId: string): T[] | undefined {
    const state = this.channels.get(channelId);
    if (state === undefined || state.pending.length === 0) {
      this.channels.delete(channelId);
      if (this.channels.size === 0) {
        const waiters = this.idleWaiters;
        this.idleWaiters = [];
        for (const resolve of waiters) resolve();
      }
      return undefined;
    }
    if (state.policy.policy === 'queue') return state.pending.splice(0, 1);
    return state.pending.splice(0, this.batchSize(state.pending));
  }

  /** How many of the waiting triggers the next coalesced turn takes (at least one). */
  private batchSize(pending: readonly T[]): number {
    const weigh = (trigger: T): number => this.options.weigh?.(trigger) ?? 1;
    let weight = 0;
    let size = 0;
    for (const trigger of pending) {
      if (size >= this.limits.count) break;
      weight += weigh(trigger);
      if (size > 0 && weight > this.limits.weight) break;
      size += 1;
    }
    return size;
  }
}
