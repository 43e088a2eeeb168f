import type { Logger } from '../../core/logger.ts';
import type { StopAddressee } from '../../stream/stop/stop-phrases.ts';
import type { StopCandidate, StopDecision, StopRegistry } from '../../stream/stop/stop-registry.ts';
import type { InboundMessage } from '../client/inbound-message.ts';
import type { CrossProcessStops } from './cross-process-stops.ts';

/** A member's message waiting in a channel for its turn, as far as a withdrawal reads it. */
export interface WaitingMessage {
  message: Pick<InboundMessage, 'id' | 'authorId'>;
  /** A character's turn of a scene: the characters a stop named, whom it hands to no more. */
  facts?: { scene?: { silenced: Set<string> } | undefined };
}

/** The channel queue, as far as a member's "never mind" reaches it. */
export interface WaitingMessages<T extends WaitingMessage> {
  waiting(channelId: string): number;
  /** What waits in a channel, in order (to read, not to change the queue with). */
  waitingIn(channelId: string): readonly T[];
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
  /** The characters on stage here, who may be told to stop by name: "Alice, stop". */
  addressees?: readonly StopAddressee[];
  isModerator: boolean;
}

/**
 * A member's message that IS a stop (the StopRegistry's lexicon decides): it stops the live
 * reply that answers them (any, for a moderator) — here or, over the control bus, in the process
 * that streams it; what they asked after it still waits and is answered. A member with no live
 * reply to stop withdraws instead their messages still waiting in the channel ("never mind").
 * A stop that names characters on stage ("Alice, stop") stops only their turns: the one
 * streaming, if it is theirs, and those of the member's scene still to come (silenced, skipped
 * when their turn comes); it withdraws nothing else.
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
    logDecision(logger, channelId, decision);
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
      logDecision(logger, channelId, decision);
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
    const named = stops.stopOf(candidate)?.named ?? [];
    if (named.length > 0) return this.silenceWaiting(heard, named);
    const withdrawn = queue.withdraw(channelId, ownWaiting);
    if (withdrawn.length > 0) {
      this.options.settle?.(withdrawn.map((waiting) => waiting.message.id));
      logger.info({ channelId, withdrawn: withdrawn.length }, 'a member withdrew waiting messages');
    }
    return withdrawn.length > 0;
  }

  /**
   * A stop naming characters whose turns have not begun: the scenes of the member's messages
   * waiting here (any member's, for a moderator) hand to them no more. True when one did.
   */
  private silenceWaiting(heard: StopHeard, named: readonly string[]): boolean {
    const { inbound, isModerator } = heard;
    let silenced = false;
    for (const waiting of this.options.queue.waitingIn(inbound.channelId)) {
      const scene = waiting.facts?.scene;
      if (scene === undefined) continue;
      if (waiting.message.authorId !== inbound.authorId && !isModerator) continue;
      for (const id of named) scene.silenced.add(id);
      silenced = true;
    }
    if (silenced) {
      this.options.logger.info(
        { channelId: inbound.channelId, characterIds: named },
        'characters silenced by a member before their turn',
      );
    }
    return silenced;
  }
}

/** One line per stop applied: the reply stopped, or only characters still to speak silenced. */
function logDecision(
  logger: Logger,
  channelId: string,
  decision: Extract<StopDecision, { stopped: true }>,
): void {
  const named = decision.request.characterIds;
  logger.info(
    { channelId, turnId: decision.request.turnId, ...(named ? { characterIds: named } : {}) },
    decision.replyStopped === false ? 'characters silenced by a member' : 'stopped by a member',
  );
}

function stopCandidate(heard: StopHeard): StopCandidate {
  const { inbound, addressForms, addressees, isModerator } = heard;
  return {
    channelId: inbound.channelId,
    messageId: inbound.id,
    authorId: inbound.authorId,
    authorName: inbound.authorName,
    content: inbound.content,
    authorIsModerator: isModerator,
    addressForms,
    ...(addressees === undefined ? {} : { addressees }),
  };
}
