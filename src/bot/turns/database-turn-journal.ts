import { systemClock, type Clock } from '../../core/clock.ts';
import { LruMap } from '../../core/lru-map.ts';
import { silentLogger, type Logger } from '../../core/logger.ts';
import type { Database } from '../../db/database.ts';
import { retryTransient } from '../../db/retry-transient.ts';
import {
  discardUnstartedTurn,
  finishAssistantTurn,
  openTurn,
  recordUserTurn,
  type UserTurnInput,
} from '../../db/turn-repository.ts';
import type {
  TurnJournal,
  TurnJournalEnd,
  TurnJournalStart,
} from '../../stream/turn/turn-journal.ts';
import type { UnrecordedReplies } from '../context/unrecorded-replies.ts';

/** Turns started and not yet finished that this journal remembers (a bound, never reached). */
const LIVE_TURNS_KEPT = 10_000;

/**
 * How long the end of a turn waits for a database that went away: longer than a PostgreSQL
 * restart or failover takes, so a reply members saw is recorded as delivered.
 */
export const TURN_FINISH_RETRY_MS = 5 * 60_000;
/**
 * How long the start of a turn waits for a database that went away: a restart or a cut
 * connection is waited out instead of failing the member's turn (the watchdog still bounds how
 * long a member waits in all).
 */
export const TURN_START_RETRY_MS = 30_000;

export interface DatabaseTurnJournalOptions {
  db: Database;
  botUserId: string;
  botName: string;
  instanceId: string;
  clock?: Clock;
  logger?: Logger;
  /** Ends the waiting for the database (shutdown); the write still gets its one try. */
  signal?: AbortSignal;
  finishRetryMs?: number;
  /** Where a delivered reply whose end could not be written is held for the next turn. */
  unrecorded?: UnrecordedReplies;
}

/**
 * The stream's TurnJournal over the database: a `streaming` row at the start, one write at the
 * end. The end is written again and again while the database is unreachable (bounded), with
 * the reply held in memory meanwhile: a reply members saw is not recorded `failed` and empty
 * because PostgreSQL restarted under it. The `streaming` row keeps this process's instance id,
 * and this process keeps its liveness lock, so no maintenance pass fails the turn meanwhile.
 */
export class DatabaseTurnJournal implements TurnJournal {
  private readonly options: DatabaseTurnJournalOptions;
  private readonly live = new LruMap<string, TurnJournalStart & { startedAt: Date }>(
    LIVE_TURNS_KEPT,
  );

  /** Starts written ahead of their stream (`begin`), until `start` or `abandon` takes them. */
  private readonly early = new Map<string, Promise<void>>();

  constructor(options: DatabaseTurnJournalOptions) {
    this.options = options;
  }

  /**
   * Writes a turn's opening before its stream runs, beside the context read: the members'
   * messages as user turns and the reply's `streaming` row, in one statement when the turn
   * answers one message (else the messages first, in order, then the row: a reply never sorts
   * before what it answers). The stream's `start` then finds the row written and awaits this
   * write (its failure fails the turn there, before any model call, as a start of its own
   * would). A turn that ends before its stream runs must `abandon` it.
   */
  begin(turn: TurnJournalStart, userTurns: readonly UserTurnInput[]): void {
    const write = this.open(turn, userTurns);
    write.catch(() => undefined);
    this.early.set(turn.turnId, write);
  }

  /**
   * The turn ended before its stream ran (stopped or failed while its context was assembled):
   * the row `begin` wrote is removed, so nothing is left `streaming`. Nothing to do when the
   * stream took the start (it writes the end) or none was begun.
   */
  async abandon(turnId: string): Promise<void> {
    const early = this.early.get(turnId);
    if (early === undefined) return;
    this.early.delete(turnId);
    this.live.delete(turnId);
    const { clock = systemClock, logger = silentLogger } = this.options;
    try {
      await early;
    } catch {
      return; // never written
    }
    await retryTransient(() => discardUnstartedTurn(this.options.db, turnId), {
      clock,
      signal: this.options.signal,
      maxElapsedMs: TURN_START_RETRY_MS,
    }).catch((error: unknown) =>
      logger.warn({ err: error, turnId }, 'could not remove the row of a turn that never streamed'),
    );
  }

  async start(turn: TurnJournalStart): Promise<void> {
    const early = this.early.get(turn.turnId);
    if (early !== undefined) {
      this.early.delete(turn.turnId);
      return early;
    }
    await this.open(turn, []);
  }

  /** The reply's `streaming` row, after (or with) the user turns of the messages it answers. */
  private async open(turn: TurnJournalStart, userTurns: readonly UserTurnInput[]): Promise<void> {
    const { clock = systemClock, logger = silentLogger } = this.options;
    this.live.set(turn.turnId, { ...turn, startedAt: new Date(clock.now()) });
    // One message goes with the row; several are written first, in order.
    const together = userTurns.length === 1 ? userTurns[0] : undefined;
    if (userTurns.length > 1) {
      // A member's message that could not be stored is logged; the reply goes on without it.
      for (const userTurn of userTurns) {
        await recordUserTurn(this.options.db, userTurn).catch((error: unknown) =>
          logger.warn({ err: error }, 'could not record the user turn'),
        );
      }
    }
    const reply = {
      id: turn.turnId,
      scopeId: turn.scopeId,
      channelId: turn.channelId,
      authorId: this.options.botUserId,
      authorName: turn.speaker?.name ?? this.options.botName,
      characterId: turn.speaker?.id,
      triggerMessageId: turn.triggerMessageId,
      instanceId: this.options.instanceId,
    };
    // Safe to send again (see openTurn).
    await retryTransient(() => openTurn(this.options.db, { userTurn: together, reply }), {
      clock,
      signal: this.options.signal,
      maxElapsedMs: TURN_START_RETRY_MS,
    });
  }

  /**
   * The end, written again while the database is away (bounded). When it still fails, a reply
   * members saw is held for the channel's next turn (written again then, shown to the model
   * meanwhile); the failure is passed on.
   */
  async finish(turnId: string, end: TurnJournalEnd): Promise<void> {
    const started = this.live.get(turnId);
    this.live.delete(turnId);
    try {
      await this.writeEnd(turnId, end);
    } catch (error) {
      const { unrecorded } = this.options;
      if (started !== undefined && unrecorded !== undefined && end.discordMessageIds.length > 0) {
        unrecorded.hold({
          turnId,
          channelId: started.channelId,
          botUserId: this.options.botUserId,
          botName: started.speaker?.name ?? this.options.botName,
          characterId: started.speaker?.id,
          triggerMessageId: started.triggerMessageId,
          startedAt: started.startedAt,
          end: { ...end, metrics: { ...end.metrics } },
        });
      }
      throw error;
    }
  }

  private async writeEnd(turnId: string, end: TurnJournalEnd): Promise<void> {
    const { clock = systemClock, logger = silentLogger } = this.options;
    const startedAt = clock.now();
    let retries = 0;
    // An update by id: writing it twice is harmless, so an ambiguous failure may be retried.
    await retryTransient(
      () =>
        finishAssistantTurn(this.options.db, turnId, {
          content: end.content,
          discordMessageIds: end.discordMessageIds,
          status: end.status,
          metrics: { ...end.metrics },
        }),
      {
        clock,
        maxElapsedMs: this.options.finishRetryMs ?? TURN_FINISH_RETRY_MS,
        signal: this.options.signal,
        onRetry: ({ attempt, error, delayMs }) => {
          retries = attempt;
          const level = attempt === 1 ? 'warn' : 'debug';
          logger[level](
            { err: error, turnId, attempt, delayMs },
            'database unreachable: holding the end of the turn and retrying',
          );
        },
      },
    );
    if (retries > 0) {
      logger.info(
        { turnId, retries, waitedMs: clock.now() - startedAt },
        'recorded the end of the turn after the database came back',
      );
    }
  }
}
