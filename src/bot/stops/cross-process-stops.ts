import { randomUUID } from 'node:crypto';
import type { Clock } from '../../core/clock.ts';
import type { ControlBus } from '../../core/control-bus.ts';
import type { Logger } from '../../core/logger.ts';
import { LruMap } from '../../core/lru-map.ts';
import type {
  CommandStopDecision,
  StopCandidate,
  StopDecision,
  StopRegistry,
} from '../../stream/stop/stop-registry.ts';
import {
  CONTROL_TOPICS,
  STOP_MESSAGE_MAX_CHARACTERS,
  stopMessageSchema,
  stopResultSchema,
  type StopMessage,
  type StopResult,
} from '../control/control-messages.ts';
import type { Database } from '../../db/database.ts';
import { streamingOwnersIn } from '../../db/turn-repository.ts';

/**
 * How long a process waits for the one streaming a channel's reply to answer a stop. Only a
 * process with a live turn there answers, so silence costs this wait: NOTIFY takes
 * milliseconds, and a command's 3 s deadline leaves room.
 */
export const REMOTE_STOP_ANSWER_MS = 1_000;
const RELAYED_STOPS_KEPT = 1_000;

export interface CrossProcessStopsOptions {
  stops: StopRegistry;
  bus: ControlBus;
  clock: Clock;
  logger: Logger;
  instanceId: string;
  answerWaitMs?: number;
  /**
   * Whether another process streams a turn there (the turns journal, its owner alive): asked
   * when no answer came within the wait. Without it, silence means nothing was live.
   */
  streamingElsewhere?: (query: StreamingQuery) => Promise<boolean>;
}

/**
 * What a stop heard here became. `unconfirmed`: no process answered in time, yet another one
 * streams a reply there — the stop was sent, and that process applies it when it hears it.
 */
export type UnconfirmedStop = { stopped: false; reason: 'unconfirmed' };
export type CrossProcessStopDecision = CommandStopDecision | UnconfirmedStop;
export type CrossProcessMessageDecision = StopDecision | UnconfirmedStop;

/**
 * Stops that reach the process streaming the reply, whichever process heard them. This
 * process's own StopRegistry decides first; when it has no live turn in the channel (and other
 * processes share the bus) the stop is published, the streaming process applies the same rules
 * to its registry and answers. Without a shared bus it is the registry alone, unchanged.
 */
export class CrossProcessStops {
  private readonly options: CrossProcessStopsOptions & { answerWaitMs: number };
  private readonly waiting = new Map<string, (result: StopResult) => void>();
  private readonly unsubscribes: Array<() => void> = [];
  /** Messages another process relayed that stopped a turn here, before this one saw them. */
  private readonly stoppedByRelayedMessage = new LruMap<string, true>(RELAYED_STOPS_KEPT);

  constructor(options: CrossProcessStopsOptions) {
    this.options = { answerWaitMs: REMOTE_STOP_ANSWER_MS, ...options };
  }

  /** Whether another process may stream a reply (the bus reaches other processes). */
  get shared(): boolean {
    return this.options.bus.shared;
  }

  /**
   * Whether this message, relayed by another process, already stopped a turn here: when this
   * process then hears it itself, it is the same stop, not a second one ("never mind").
   */
  stoppedFor(messageId: string): boolean {
    return this.stoppedByRelayedMessage.has(messageId);
  }

  /** Starts answering other processes' stops for the turns this process streams. */
  start(): void {
    const { bus } = this.options;
    this.unsubscribes.push(
      bus.subscribe(CONTROL_TOPICS.stop, (payload) => this.onStopMessage(payload)),
      bus.subscribe(CONTROL_TOPICS.stopResult, (payload) => this.onStopResult(payload)),
    );
  }

  close(): void {
    for (const unsubscribe of this.unsubscribes.splice(0)) unsubscribe();
  }

  /**
   * `/stop`, `/reset` and the Stop button: the live turn in the channel, here or in another
   * process. A turn stopped here is also stopped elsewhere (two processes may each answer one
   * member there) — except for the button, which names its one turn (`turnId`).
   */
  async stopByCommand(command: {
    channelId: string;
    authorId: string;
    authorIsModerator: boolean;
    by: 'command' | 'reset' | 'button';
    turnId?: string;
  }): Promise<CrossProcessStopDecision> {
    const local = this.options.stops.stopByCommand(command);
    if (!this.options.bus.shared) return local;
    const message = this.stopMessage(command);
    const foundHere = local.stopped || local.reason !== 'no-live-turn';
    // The turn a button names is live in one process only: found here, there is no one to tell.
    if (foundHere && command.turnId !== undefined) return local;
    // A reset needs no answer: its notice says the same whoever stopped what.
    if (foundHere || command.by === 'reset') {
      void this.publish(message);
      return local;
    }
    const result = await this.ask(message);
    if (result === 'unconfirmed') return { stopped: false, reason: 'unconfirmed' };
    if (result === undefined) return local;
    if (result.stopped) return { stopped: true, turnId: result.turnId ?? '' };
    return { stopped: false, reason: commandRefusal(result.reason) };
  }

  /**
   * A stop said in the channel that this process has no live turn for: undefined when no
   * other process answered and none streams there (nothing live anywhere), `unconfirmed` when
   * one streams there but did not answer in time, else its decision. The caller checked that
   * the message is a stop at all.
   */
  async considerElsewhere(
    candidate: StopCandidate,
  ): Promise<CrossProcessMessageDecision | undefined> {
    if (!this.options.bus.shared) return undefined;
    if (candidate.content.length > STOP_MESSAGE_MAX_CHARACTERS) return undefined;
    const result = await this.ask(
      this.stopMessage({
        ...candidate,
        by: 'message',
        message: {
          messageId: candidate.messageId,
          authorName: candidate.authorName.slice(0, 100),
          content: candidate.content,
          addressForms: candidate.addressForms.slice(0, 20).map((form) => form.slice(0, 100)),
        },
      }),
    );
    if (result === undefined) return undefined;
    if (result === 'unconfirmed') return { stopped: false, reason: 'unconfirmed' };
    if (result.stopped) {
      return {
        stopped: true,
        request: {
          kind: 'stop-request',
          turnId: result.turnId ?? '',
          channelId: candidate.channelId,
          messageId: candidate.messageId,
          authorId: candidate.authorId,
          authorName: candidate.authorName,
          content: candidate.content,
        },
      };
    }
    return { stopped: false, reason: result.reason ?? 'no-live-turn' };
  }

  private stopMessage(
    fields: Omit<StopMessage, 'requestId' | 'origin' | 'message'> & {
      message?: StopMessage['message'];
    },
  ): StopMessage {
    return {
      requestId: randomUUID(),
      origin: this.options.instanceId,
      by: fields.by,
      channelId: fields.channelId,
      authorId: fields.authorId,
      authorIsModerator: fields.authorIsModerator,
      turnId: fields.turnId,
      message: fields.message,
    };
  }

  /**
   * Publishes a stop and waits for the first answer, or for REMOTE_STOP_ANSWER_MS. Silence
   * is not yet "nothing live": the turns journal may show another process streaming there
   * (busy, or its NOTIFY slow), which then hears the stop late and still applies it —
   * `unconfirmed`. An answer that comes while the journal is read still wins.
   */
  private async ask(message: StopMessage): Promise<StopResult | 'unconfirmed' | undefined> {
    const timeout = new AbortController();
    const answered = new Promise<StopResult>((resolve) =>
      this.waiting.set(message.requestId, resolve),
    );
    let failed = false;
    try {
      const first = await Promise.race([
        this.publish(message).then((published) => {
          failed = !published;
          return answered;
        }),
        this.options.clock.sleep(this.options.answerWaitMs, timeout.signal).then(() => undefined),
      ]);
      if (first !== undefined) return first;
      // A stop that could not be sent is not "sent, unconfirmed" (one still being sent is).
      if (failed) return undefined;
      const { streamingElsewhere, logger, answerWaitMs } = this.options;
      if (streamingElsewhere === undefined) return undefined;
      return await Promise.race([
        answered,
        unconfirmedIfStreaming(message, { streamingElsewhere, logger, answerWaitMs }),
      ]);
    } finally {
      timeout.abort();
      this.waiting.delete(message.requestId);
    }
  }

  /** False when the stop could not be sent (it reached no other process). */
  private async publish(message: StopMessage): Promise<boolean> {
    return this.options.bus.publish(CONTROL_TOPICS.stop, message).then(
      () => true,
      (error: unknown) => {
        this.options.logger.warn({ err: error }, 'could not send a stop to the other processes');
        return false;
      },
    );
  }

  private onStopMessage(payload: unknown): void {
    const parsed = stopMessageSchema.safeParse(payload);
    if (!parsed.success) {
      this.options.logger.warn({ topic: CONTROL_TOPICS.stop }, 'ignored a malformed stop');
      return;
    }
    const message = parsed.data;
    const { stops, instanceId, logger } = this.options;
    const live = stops.liveTurn(message.channelId);
    if (message.origin === instanceId || live === undefined) return;
    // Only the process streaming the named turn answers a button: another's "nothing live
    // here" must not be the first answer the presser's process takes.
    if (message.turnId !== undefined && message.turnId !== live.turnId) return;
    const result = this.decide(message);
    if (result.stopped) {
      logger.info(
        {
          channelId: message.channelId,
          turnId: result.turnId,
          by: message.by,
          from: message.origin,
        },
        'stopped by another process',
      );
    }
    void this.options.bus.publish(CONTROL_TOPICS.stopResult, result).catch((error: unknown) => {
      logger.warn({ err: error }, 'could not answer a stop from another process');
    });
  }

  private decide(message: StopMessage): StopResult {
    const { stops, instanceId } = this.options;
    const answer = { requestId: message.requestId, origin: instanceId };
    if (message.message === undefined) {
      const decision = stops.stopByCommand(message);
      return decision.stopped
        ? { ...answer, stopped: true, turnId: decision.turnId }
        : { ...answer, stopped: false, reason: decision.reason };
    }
    const decision = stops.consider({
      channelId: message.channelId,
      authorId: message.authorId,
      authorIsModerator: message.authorIsModerator,
      ...message.message,
    });
    if (decision.stopped) this.stoppedByRelayedMessage.set(message.message.messageId, true);
    return decision.stopped
      ? { ...answer, stopped: true, turnId: decision.request.turnId }
      : { ...answer, stopped: false, reason: decision.reason };
  }

  private onStopResult(payload: unknown): void {
    const parsed = stopResultSchema.safeParse(payload);
    if (!parsed.success) return;
    this.waiting.get(parsed.data.requestId)?.(parsed.data);
  }
}

function commandRefusal(
  reason: StopResult['reason'],
): 'not-requester' | 'already-stopping' | 'no-live-turn' {
  if (reason === 'not-requester' || reason === 'no-live-turn') return reason;
  return 'already-stopping';
}

/** Which turn a stop is for: the channel's live one, or (the Stop button) one turn only. */
export interface StreamingQuery {
  channelId: string;
  turnId?: string | undefined;
}

export interface StreamingElsewhereOptions {
  db: Database;
  /** This process: its own rows are judged by its StopRegistry, never here. */
  instanceId: string;
  /** Whether the process that owns a row still runs (the database's liveness locks). */
  isAlive(instanceId: string): Promise<boolean>;
  /** Whether a missing liveness lock proves a death now (not right after a server restart). */
  canJudgePeers(): Promise<boolean>;
}

/**
 * Whether another process streams a turn in the channel, by the turns journal: a `streaming`
 * row whose owner still runs. Asked when no process answered a stop in time, so that a busy
 * streaming process (or a slow NOTIFY) does not make the member hear "nothing to stop" while
 * the reply goes on. A row left `streaming` by a dead process is no live reply: its owner's
 * missing liveness lock says so, judged as failAbandonedTurns judges it. While this process
 * cannot judge its peers (its own lock lost, or the server just restarted), an owner with a
 * name counts as alive: for that while, "the stop was sent" rather than "nothing to stop".
 */
export function streamingElsewhere(
  options: StreamingElsewhereOptions,
): (query: StreamingQuery) => Promise<boolean> {
  return async (query) => {
    const owners = await streamingOwnersIn(options.db, query);
    const others = owners.filter(
      (owner): owner is string => owner !== null && owner !== options.instanceId,
    );
    if (others.length === 0) return false;
    if (!(await options.canJudgePeers())) return true;
    for (const owner of new Set(others)) {
      if (await options.isAlive(owner)) return true;
    }
    return false;
  };
}

/**
 * After a stop's answer wait passed in silence: `unconfirmed` when another process streams the
 * turn it is for (it hears the stop late and still applies it), else undefined — nothing live,
 * as before. A journal that cannot be read leaves that old answer (logged).
 */
export async function unconfirmedIfStreaming(
  message: StopMessage,
  options: {
    streamingElsewhere: (query: StreamingQuery) => Promise<boolean>;
    logger: Logger;
    answerWaitMs: number;
  },
): Promise<'unconfirmed' | undefined> {
  const { logger } = options;
  const query = {
    channelId: message.channelId,
    turnId: message.turnId,
  };
  try {
    if (!(await options.streamingElsewhere(query))) return undefined;
  } catch (error) {
    logger.warn({ err: error, ...query }, 'could not look for a reply streaming elsewhere');
    return undefined;
  }
  logger.info(
    { ...query, by: message.by, waitedMs: options.answerWaitMs },
    'a stop sent to another process is not confirmed yet',
  );
  return 'unconfirmed';
}
