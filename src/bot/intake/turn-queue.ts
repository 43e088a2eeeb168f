import type { QueuePolicy } from '../../core/settings.ts';

/** What became of an accepted message handed to its channel's queue. */
export type SubmitOutcome = 'started' | 'coalesced' | 'queued' | 'rejected';

export interface ChannelPolicy {
  policy: QueuePolicy;
  /** Queue policy: how many messages may wait behind the live turn. */
  depth: number;
}

/**
 * Where intake hands what it accepted: the channels' turn queue (turns/channel-turn-scheduler.ts
 * implements it). A port, so intake decides and the turn stage runs, and neither reaches back.
 */
export interface TurnQueue<T> {
  submit(channelId: string, accepted: T, policy: ChannelPolicy): SubmitOutcome;
  /** Whether a channel has a turn live or messages waiting. */
  isBusy(channelId: string): boolean;
  /** Messages waiting in a channel (not counting the live turn). */
  waiting(channelId: string): number;
  /** The messages waiting in a channel, in order: read only. */
  waitingIn(channelId: string): readonly T[];
  /** Removes the waiting messages `matches` picks (they will not be answered) and returns them. */
  withdraw(channelId: string, matches: (waiting: T) => boolean): T[];
}
