import type { QueuePolicy } from '../core/settings.ts';
import type { Logger } from '../core/logger.ts';
import type { ChannelLease, ChannelLocks } from './channel-locks.ts';

export type SubmitOutcome = 'started' | 'coalesced' | 'queued' | 'rejected';

export interface ChannelPolicy {
  policy: QueuePolicy;
  /** Queue policy only: how many triggers may wait behind the live turn. */
  depth: number;
}

export interface ChannelTurnSchedulerOptions<T> {
  locks: ChannelLocks;
  logger: Logger;
  /** Runs one turn for `batch` (one trigger, or several coalesced) while holding the lease. */
  runTurn(channelId: string, batch: readonly T[], lease: ChannelLease): Promise<void>;
}

interface ChannelState<T> {
  pending: T[];
  policy: ChannelPolicy;
}

/**
 * Decides what happens to a trigger that arrives while its channel is busy:
 * - `coalesce` (default): it waits, and everything that arrived during the live turn is
 *   answered together in the next turn;
 * - `queue`: it waits its own turn, up to `depth` waiting; beyond that it is rejected so the
 *   caller can tell the member politely.
 * Turns of one channel run strictly one after another under a ChannelLocks lease.
 */
export class ChannelTurnScheduler<T> {
  private readonly channels = new Map<string, ChannelState<T>>();
  private idleWaiters: Array<() => void> = [];
  private readonly options: ChannelTurnSchedulerOptions<T>;

  constructor(options: ChannelTurnSchedulerOptions<T>) {
    this.options = options;
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
    const state = this.channels.get(channelId);
    if (state === undefined) {
      this.channels.set(channelId, { pending: [], policy });
      void this.drain(channelId, [trigger]);
      return 'started';
    }
    state.policy = policy;
    if (policy.policy === 'coalesce') {
      state.pending.push(trigger);
      return 'coalesced';
    }
    if (state.pending.length >= policy.depth) return 'rejected';
    state.pending.push(trigger);
    return 'queued';
  }

  private async drain(channelId: string, first: T[]): Promise<void> {
    let batch: T[] | undefined = first;
    while (batch !== undefined) {
      const lease = await this.options.locks.acquire(channelId);
      try {
        await this.options.runTurn(channelId, batch, lease);
      } catch (error) {
        this.options.logger.error(
          { err: error, channelId },
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
    if (state.policy.policy === 'coalesce') return state.pending.splice(0);
    return state.pending.splice(0, 1);
  }
}
