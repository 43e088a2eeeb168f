import { WAIT_CANCELLED, type Clock } from '../../core/clock.ts';
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
  /** Aborted by the watchdog when the turn did not begin its reply in time. */
  signal: AbortSignal;
  /** The turn reached its model call: its messages no longer wait (the watchdog lets go). */
  begun: () => void;
}

/** Why the watchdog gave up on messages: what they waited behind, and for how long. */
export interface OverdueReason {
  /** `waiting`: queued behind the live turn; `stalled`: their own turn never reached the model. */
  kind: 'waiting' | 'stalled';
  waitedMs: number;
  /** The channel's turn at that moment (the one waited behind, or the stalled one). */
  turnId: string | undefined;
  /** How long that turn had run. */
  turnRanMs: number | undefined;
}

/**
 * No accepted message waits forever: one that has not reached its model call within
 * `limitMs` of being accepted is given up (withdrawn, or its stalled turn abandoned) and handed
 * to `onOverdue`, which tells the member and logs why.
 */
export interface TurnWatchdog<T> {
  limitMs: number;
  clock: Clock;
  onOverdue(channelId: string, triggers: readonly T[], reason: OverdueReason): void;
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
  watchdog?: TurnWatchdog<T>;
}

interface LiveTurn<T> {
  id: string;
  batch: readonly T[];
  startedAt: number;
  begun: boolean;
  controller: AbortController;
}

interface ChannelState<T> {
  pending: T[];
  policy: ChannelPolicy;
  live: LiveTurn<T> | undefined;
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
  /** Each accepted trigger's watchdog timer, until its turn begins (or it leaves otherwise). */
  private readonly deadlines = new Map<T, { acceptedAt: number; cancel(): void }>();
  private closed = false;

  constructor(options: ChannelTurnSchedulerOptions<T>) {
    this.options = options;
    this.limits = options.batchLimits ?? DEFAULT_BATCH_LIMITS;
  }

  /** Triggers waiting in a channel (not counting the live turn). */
  waiting(channelId: string): number {
    return this.channels.get(channelId)?.pending.length ?? 0;
  }

  /** The triggers waiting in a channel, in order (a copy). */
  waitingIn(channelId: string): readonly T[] {
    return [...(this.channels.get(channelId)?.pending ?? [])];
  }

  /** Channels with a turn in progress, and triggers waiting behind them (for the metrics). */
  load(): { live: number; queued: number } {
    let queued = 0;
    for (const state of this.channels.values()) queued += state.pending.length;
    return { live: this.channels.size, queued };
  }

  /** Whether the channel has a turn live or triggers waiting. */
  isBusy(channelId: string): boolean {
    return this.channels.has(channelId);
  }

  /** Whether no channel has a live or waiting turn now. */
  isIdle(): boolean {
    return this.channels.size === 0;
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
      this.channels.set(channelId, { pending: [], policy, live: undefined });
      this.watch(channelId, trigger);
      void this.drain(channelId, [trigger]);
      return 'started';
    }
    state.policy = policy;
    const room = policy.policy === 'coalesce' ? COALESCE_MAX_WAITING : policy.depth;
    if (state.pending.length >= room) return 'rejected';
    state.pending.push(trigger);
    this.watch(channelId, trigger);
    return policy.policy === 'coalesce' ? 'coalesced' : 'queued';
  }

  /** Removes the waiting triggers `matches` picks (they will not run) and returns them. */
  withdraw(channelId: string, matches: (trigger: T) => boolean): T[] {
    const state = this.channels.get(channelId);
    if (state === undefined) return [];
    const withdrawn = state.pending.filter(matches);
    if (withdrawn.length > 0) state.pending = state.pending.filter((trigger) => !matches(trigger));
    this.unwatch(withdrawn);
    return withdrawn;
  }

  /** Shutdown: takes every waiting trigger back (none of them will run) and refuses new ones. */
  close(): T[] {
    this.closed = true;
    const taken: T[] = [];
    for (const state of this.channels.values()) taken.push(...state.pending.splice(0));
    this.unwatch(taken);
    return taken;
  }

  /**
   * Runs the channel's turns one after another. Nothing here may leave the channel marked busy
   * with no turn running: every later message would be accepted and wait for good. So a lock
   * that cannot be taken or a turn that throws ends only that turn, and a turn the watchdog
   * abandoned, or one that outlived its lock's hold timeout, is no longer waited for.
   */
  private async drain(channelId: string, first: T[]): Promise<void> {
    let batch: T[] | undefined = first;
    while (batch !== undefined) {
      const live: LiveTurn<T> = {
        id: (this.options.newTurnId ?? timeOrderedId)(),
        batch,
        startedAt: this.now(),
        begun: false,
        controller: new AbortController(),
      };
      const state = this.channels.get(channelId);
      if (state !== undefined) state.live = live;
      let lease: ChannelLease | undefined;
      try {
        lease = await this.options.locks.acquire(channelId);
        const run = this.options.runTurn({
          id: live.id,
          channelId,
          batch,
          lease,
          signal: live.controller.signal,
          begun: () => this.begun(live),
        });
        // A turn stuck past its lock's hold timeout has its lease taken back (aborted): the
        // channel moves on even when the turn ignores that abort.
        await untilSettledOrAbandoned(run, AbortSignal.any([live.controller.signal, lease.signal]));
        if (lease.signal.aborted) {
          this.options.logger.warn(
            { channelId, turnId: live.id },
            'a turn held its channel past the hold timeout: the channel moves on',
          );
        }
      } catch (error) {
        this.options.logger.error(
          { err: error, channelId, turnId: live.id },
          'turn failed outside its own error handling',
        );
      } finally {
        lease?.release();
        this.unwatch(batch);
        if (state !== undefined) state.live = undefined;
      }
      batch = this.takeNext(channelId);
    }
  }

  private begun(live: LiveTurn<T>): void {
    live.begun = true;
    this.unwatch(live.batch);
  }

  /** Starts a trigger's watchdog timer (none without a watchdog). */
  private watch(channelId: string, trigger: T): void {
    const { watchdog } = this.options;
    if (watchdog === undefined) return;
    const timer = new AbortController();
    const acceptedAt = watchdog.clock.now();
    this.deadlines.set(trigger, { acceptedAt, cancel: () => timer.abort(WAIT_CANCELLED) });
    watchdog.clock.sleep(watchdog.limitMs, timer.signal).then(
      () => this.overdue(channelId, trigger),
      () => undefined,
    );
  }

  private unwatch(triggers: readonly T[]): void {
    for (const trigger of triggers) {
      this.deadlines.get(trigger)?.cancel();
      this.deadlines.delete(trigger);
    }
  }

  /**
   * A trigger's time is up. Still queued: it is withdrawn. In a turn that has not reached its
   * model call: that turn is abandoned (its signal aborted, the channel moves on) and every
   * trigger of it is overdue.
   */
  private overdue(channelId: string, trigger: T): void {
    const deadline = this.deadlines.get(trigger);
    const state = this.channels.get(channelId);
    const watchdog = this.options.watchdog;
    if (deadline === undefined || state === undefined || watchdog === undefined) return;
    const now = watchdog.clock.now();
    const { live } = state;
    const reasonFor = (kind: OverdueReason['kind']): OverdueReason => ({
      kind,
      waitedMs: now - deadline.acceptedAt,
      turnId: live?.id,
      turnRanMs: live === undefined ? undefined : now - live.startedAt,
    });
    if (state.pending.includes(trigger)) {
      state.pending = state.pending.filter((waiting) => waiting !== trigger);
      this.unwatch([trigger]);
      watchdog.onOverdue(channelId, [trigger], reasonFor('waiting'));
      return;
    }
    if (live === undefined || live.begun || !live.batch.includes(trigger)) return;
    this.unwatch(live.batch);
    live.controller.abort(new TurnOverdueError(live.id));
    watchdog.onOverdue(channelId, live.batch, reasonFor('stalled'));
  }

  private now(): number {
    return this.options.watchdog?.clock.now() ?? Date.now();
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

/** The abort reason of a turn the watchdog abandoned: it did not reach its model call in time. */
export class TurnOverdueError extends Error {
  readonly kind = 'turn-overdue';
  constructor(turnId: string) {
    super(`turn ${turnId} did not begin its reply in time`);
    this.name = 'TurnOverdueError';
  }
}

/**
 * Waits for the turn, or only until it is abandoned — by the watchdog, or by its lock's hold
 * timeout (a stuck turn is not awaited).
 */
function untilSettledOrAbandoned(run: Promise<void>, abandoned: AbortSignal): Promise<void> {
  if (abandoned.aborted) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const onAbandoned = (): void => resolve();
    abandoned.addEventListener('abort', onAbandoned, { once: true });
    run.then(
      () => {
        abandoned.removeEventListener('abort', onAbandoned);
        resolve();
      },
      (error: unknown) => {
        abandoned.removeEventListener('abort', onAbandoned);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
