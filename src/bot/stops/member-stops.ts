import type { Logger } from '../../core/logger.ts';
import type { StopCandidate, StopRegistry } from '../../stream/stop/stop-registry.ts';
import type { InboundMessage } from '../client/inbound-message.ts';
import type { CrossProcessStops } from './cross-process-stops.ts';

/** A member's message waiting in a channel for its turn, as far as a withdrawal reads it. */
export interface WaitingMessage {
  message: Pick<InboundMessage, 'id' | 'authorId'>;
}

/** The channel queue, as far as a member's "never mind" reaches it. */
export interface WaitingMessages<T extends WaitingMessage> {
  waiting(channelId: string): number;
  withdraw(channelId: string, matches: (waiting: T) => boolean): T[];
}

export interface MemberStopsOptions<T extends WaitingMessage> {
  stops: StopRegistry;
  /** Stops heard here for a reply another process streams (several processes, one database). */
  remoteStops?: Pick<CrossProcessStops, 'considerElsewhere' | 'shared' | 'stoppedFor'> | undefined;
  queue: WaitingMessages<T>;
  /** Releases the claims of withdrawn messages: they will not be answered. */
  settle?(messageIds: readonly string[]): void;
  logger: Logger;
}

/** What a stop needs to know of the message that may be one. */
export interface StopHeard {
  inbound: InboundMessage;
  /** How members address the bot here (its names, trigger words): "Tomodachi, stop". */
  addressForms: readonly string[];
  isModerator: boolean;
}

/**
 * A member's message that IS a stop (the StopRegistry's lexicon decides): it stops the live
 * reply that answers them (any, for a moderator) — here or, over the control bus, in the process
 * that streams it; what they asked after it still waits and is answered. A member with no live
 * reply to stop withdraws instead their messages still waiting in the channel ("never mind").
 */
export class MemberStops<T extends WaitingMessage> {
  private readonly options: MemberStopsOptions<T>;

  constructor(options: MemberStopsOptions<T>) {
    this.options = options;
  }

  /**
   * A stop for a reply live in this process, decided at once — ahead of the channel's earlier
   * messages still in intake (their database steps may be waiting out an outage, and the reply
   * would stream on meanwhile, or the stop reach the next reply instead). True when it stopped.
   */
  stopLiveAtOnce(heard: StopHeard): boolean {
    const { stops, logger } = this.options;
    const channelId = heard.inbound.channelId;
    if (stops.liveTurn(channelId) === undefined) return false;
    const candidate = stopCandidate(heard);
    if (!stops.isStop(candidate)) return false;
    const decision = stops.consider(candidate);
    if (decision.stopped !== true) return false;
    logger.info({ channelId, turnId: decision.request.turnId }, 'stopped by a member');
    return true;
  }

  /** In gateway order: true when the message stopped a reply or withdrew waiting messages. */
  async stopOrWithdraw(heard: StopHeard): Promise<boolean> {
    const { stops, remoteStops, queue, logger } = this.options;
    const { inbound } = heard;
    const channelId = inbound.channelId;
    const ownWaiting = (waiting: T): boolean => waiting.message.authorId === inbound.authorId;
    const hasLive = stops.liveTurn(channelId) !== undefined;
    const elsewhere = remoteStops !== undefined && remoteStops.shared;
    if (!hasLive && !elsewhere && queue.waiting(channelId) === 0) return false;
    const candidate = stopCandidate(heard);
    if (!stops.isStop(candidate)) return false;
    // The reply may be streamed by another process on this database: ask it to judge the stop.
    const decision = hasLive
      ? stops.consider(candidate)
      : await remoteStops?.considerElsewhere(candidate);
    if (decision?.stopped === true) {
      logger.info({ channelId, turnId: decision.request.turnId }, 'stopped by a member');
      return true;
    }
    // Sent to the process streaming the reply, which has not answered yet: it applies the stop
    // when it hears it (and acknowledges in persona), so this message is a stop, not a question.
    if (decision?.reason === 'unconfirmed') {
      logger.info({ channelId }, 'a stop was sent to the process streaming the reply');
      return true;
    }
    // The same stop heard twice (relayed by another process, and here): one stop, no withdrawal.
    if (
      decision?.reason === 'already-stopping' &&
      (!hasLive || remoteStops?.stoppedFor(inbound.id) === true)
    )
      return true;
    const withdrawn = queue.withdraw(channelId, ownWaiting);
    if (withdrawn.length > 0) {
      this.options.settle?.(withdrawn.map((waiting) => waiting.message.id));
      logger.info({ channelId, withdrawn: withdrawn.length }, 'a member withdrew waiting messages');
    }
    return withdrawn.length > 0;
  }
}

function stopCandidate({ inbound, addressForms, isModerator }: StopHeard): StopCandidate {
  return {
    channelId: inbound.channelId,
    messageId: inbound.id,
    authorId: inbound.authorId,
    authorName: inbound.authorName,
    content: inbound.content,
    authorIsModerator: isModerator,
    addressForms,
  };
}
