import {
  createStopPhraseMatcher,
  type StopAddressee,
  type StopPhraseMatcher,
} from './stop-phrases.ts';

/**
 * Why a turn was stopped: carried as the abort reason of the turn's signal, and kept in the
 * turn's outcome so the caller can still run the in-persona acknowledgement once the stream has
 * ended.
 */
export interface StopRequest {
  readonly kind: 'stop-request';
  readonly turnId: string;
  readonly channelId: string;
  /** The message that asked to stop. */
  readonly messageId: string;
  readonly authorId: string;
  readonly authorName: string;
  readonly content: string;
  /**
   * The characters the stop named ("Alice, stop"); absent for a stop of everything. Only their
   * turns stop: the scene goes on with the others.
   */
  readonly characterIds?: readonly string[];
}

export function isStopRequest(value: unknown): value is StopRequest {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { kind?: unknown }).kind === 'stop-request'
  );
}

/**
 * A stop asked for with `/stop` rather than said in the channel: the abort reason of the turn's
 * signal. The turn ends `stopped` like after a natural stop, but there is no message to answer
 * in persona (the command's own reply tells the member), so it is not a StopRequest.
 */
export interface CommandStop {
  readonly kind: 'command-stop';
  readonly turnId: string;
  readonly channelId: string;
  readonly authorId: string;
}

export type CommandStopDecision =
  | { stopped: true; turnId: string }
  | { stopped: false; reason: 'no-live-turn' | 'not-requester' | 'already-stopping' };

/** A message seen in a channel, as the bot edge describes it. */
export interface StopCandidate {
  channelId: string;
  messageId: string;
  authorId: string;
  authorName: string;
  content: string;
  /** The author may stop anyone's turn (the caller checks the permission). */
  authorIsModerator: boolean;
  /**
   * How the message may name the bot: its mention as the message shows it ("@Tomodachi") and
   * the scope's trigger words. "@Tomodachi stop" is a stop; "@Tomodachi how do I cancel my
   * order?" is a message to answer, and so is "@Bob stop" (said to someone else).
   */
  addressForms: readonly string[];
  /** Characters on stage, who may be told to stop by name ("Alice, stop"). */
  addressees?: readonly StopAddressee[];
}

export type StopDecision =
  | {
      stopped: true;
      request: StopRequest;
      /**
       * False when the stop named only characters still to speak: they are silenced, and the
       * reply that streams goes on. Absent: the reply was stopped.
       */
      replyStopped?: boolean;
    }
  | {
      stopped: false;
      reason: 'no-live-turn' | 'not-requester' | 'not-a-stop' | 'already-stopping';
    };

/**
 * A live turn one of the bot's characters speaks in a scene: a stop may name it, or another
 * character of the scene still to speak.
 */
export interface LiveCast {
  /** The character speaking the turn. */
  speakerId: string;
  /** Everyone on stage, who may be named. */
  stage: readonly { id: string; name: string }[];
  /** The scene hands to these characters no more (for the member message it answers). */
  silence(characterIds: readonly string[]): void;
}

/** A registered live turn; `signal` aborts (reason: a StopRequest) when it is stopped. */
export interface LiveTurn {
  readonly turnId: string;
  readonly signal: AbortSignal;
  /** Unregisters the turn. Harmless when a newer turn has taken the channel since. */
  end(): void;
}

interface Entry {
  turnId: string;
  /** Everyone whose message the turn answers (a coalesced batch has several). */
  requesterIds: ReadonlySet<string>;
  controller: AbortController;
  cast: LiveCast | undefined;
}

/**
 * Per-channel registry of the live turn and its natural stop. A message stops the turn only
 * when its author is the member being answered (or a moderator) AND the message IS a stop: a
 * stop phrase with only small words around it ("okay stop", "stop, I get it", "やめてください"),
 * possibly naming the bot. Another member's "wait, what?" stops nothing, and neither does the
 * requester's "@bot how do I cancel my order?" or "wait, what about X?": those are new messages.
 */
export class StopRegistry {
  private readonly matcher: StopPhraseMatcher;
  private readonly live = new Map<string, Entry>();

  constructor(options: { matcher?: StopPhraseMatcher } = {}) {
    this.matcher = options.matcher ?? createStopPhraseMatcher();
  }

  /**
   * Registers the channel's live turn from the moment its messages are accepted (before its
   * context is assembled), so a stop at any point of it is honoured. Every member it answers
   * may stop it.
   */
  begin(turn: {
    channelId: string;
    turnId: string;
    requesterIds: readonly string[];
    /** Set when a character of a scene speaks the turn. */
    cast?: LiveCast | undefined;
  }): LiveTurn {
    const entry: Entry = {
      turnId: turn.turnId,
      requesterIds: new Set(turn.requesterIds),
      controller: new AbortController(),
      cast: turn.cast,
    };
    this.live.set(turn.channelId, entry);
    return {
      turnId: turn.turnId,
      signal: entry.controller.signal,
      // Ownership by identity: a stale turn ending late never unregisters its successor.
      end: () => {
        if (this.live.get(turn.channelId) === entry) this.live.delete(turn.channelId);
      },
    };
  }

  /** The live turn in a channel, if any. */
  liveTurn(channelId: string): { turnId: string; requesterIds: readonly string[] } | undefined {
    const entry = this.live.get(channelId);
    return entry === undefined
      ? undefined
      : { turnId: entry.turnId, requesterIds: [...entry.requesterIds] };
  }

  /** Whether the message asks to stop at all, whoever wrote it and whatever is live. */
  isStop(
    message: Pick<StopCandidate, 'channelId' | 'content' | 'addressForms' | 'addressees'>,
  ): boolean {
    return this.stopOf(message) !== undefined;
  }

  /**
   * The stop a message is, and the characters it names (none: a stop for everyone) — among the
   * message's addressees and those on the channel's live stage. Undefined when it is no stop.
   */
  stopOf(
    message: Pick<StopCandidate, 'channelId' | 'content' | 'addressForms' | 'addressees'>,
  ): { named: string[] } | undefined {
    const stage = this.live.get(message.channelId)?.cast?.stage ?? [];
    return this.matcher.stopOf(message.content, {
      addressForms: message.addressForms,
      addressees: [
        ...(message.addressees ?? []),
        ...stage.map((character) => ({ id: character.id, names: [character.name] })),
      ],
    });
  }

  /**
   * Decides whether `message` stops the channel's live turn, and stops it if so. A stop that
   * names characters ("Alice, stop") stops the live turn only if its character is named, and
   * silences the named ones still to speak in its scene; said while the bot speaks as itself,
   * it is not a stop of its turn.
   */
  consider(message: StopCandidate): StopDecision {
    const entry = this.live.get(message.channelId);
    if (entry === undefined) return { stopped: false, reason: 'no-live-turn' };
    if (!entry.requesterIds.has(message.authorId) && !message.authorIsModerator) {
      return { stopped: false, reason: 'not-requester' };
    }
    const stop = this.stopOf(message);
    if (stop === undefined) return { stopped: false, reason: 'not-a-stop' };
    const request: StopRequest = {
      kind: 'stop-request',
      turnId: entry.turnId,
      channelId: message.channelId,
      messageId: message.messageId,
      authorId: message.authorId,
      authorName: message.authorName,
      content: message.content,
      ...(stop.named.length === 0 ? {} : { characterIds: stop.named }),
    };
    if (stop.named.length > 0) {
      const { cast } = entry;
      if (cast === undefined) return { stopped: false, reason: 'not-a-stop' };
      cast.silence(stop.named);
      if (!stop.named.includes(cast.speakerId)) {
        return { stopped: true, request, replyStopped: false };
      }
    }
    if (entry.controller.signal.aborted) return { stopped: false, reason: 'already-stopping' };
    entry.controller.abort(request);
    return { stopped: true, request };
  }

  /**
   * Stops the channel's live turn for `/stop`: the same rule as a natural stop (the member being
   * answered, or a moderator) without the phrase, since the command says what it means. With
   * `turnId` (the Stop button under one reply) only that turn is stopped: a press on a reply
   * that has ended finds nothing live, even when a newer turn streams in the channel.
   */
  stopByCommand(command: {
    channelId: string;
    authorId: string;
    authorIsModerator: boolean;
    turnId?: string | undefined;
  }): CommandStopDecision {
    const entry = this.live.get(command.channelId);
    if (entry === undefined) return { stopped: false, reason: 'no-live-turn' };
    if (command.turnId !== undefined && command.turnId !== entry.turnId) {
      return { stopped: false, reason: 'no-live-turn' };
    }
    if (!entry.requesterIds.has(command.authorId) && !command.authorIsModerator) {
      return { stopped: false, reason: 'not-requester' };
    }
    if (entry.controller.signal.aborted) return { stopped: false, reason: 'already-stopping' };
    const stop: CommandStop = {
      kind: 'command-stop',
      turnId: entry.turnId,
      channelId: command.channelId,
      authorId: command.authorId,
    };
    entry.controller.abort(stop);
    return { stopped: true, turnId: entry.turnId };
  }
}
