import type { ChatRequest } from '../../core/chat.ts';
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import type { SpeechService } from '../../core/speech.ts';
import type { BotMetrics } from '../../core/metrics.ts';
import type { ToolContext, ToolExecutor } from '../../core/tool.ts';
import type { Database } from '../../db/database.ts';
import { retryTransient } from '../../db/retry-transient.ts';
import { openApiKey } from '../../db/scope-settings-repository.ts';
import type { ProviderFactory, ResolvedModel } from '../../providers/provider-factory.ts';
import type { SecretBox } from '../../security/secret-box.ts';
import type { LiveTurn, StopRegistry } from '../../stream/stop/stop-registry.ts';
import type { StreamOrchestrator } from '../../stream/turn/stream-orchestrator.ts';
import type { ChannelHistory } from '../context/channel-history.ts';
import type { UnrecordedReplies } from '../context/unrecorded-replies.ts';
import type { Download } from '../context/trigger-attachments.ts';
import { prepareTurn, seenUnanswered, type PreparedTurn } from '../context/turn-context.ts';
import type { DeliveryPort } from '../delivery/delivery-port.ts';
import { postFailureNotice } from '../delivery/failure-notice.ts';
import { notConfigured } from '../i18n/member-text.ts';
import type { TypingAllowance } from '../delivery/typing-allowance.ts';
import type { AcceptedMessage, TurnFacts } from '../intake/accepted-message.ts';
import type { DailyBudget } from '../limits/daily-budget.ts';
import { timeStop } from '../stops/stop-latency.ts';
import type { AnsweredInPassing } from '../intake/answered-in-passing.ts';
import type { CharacterSpeakers } from '../intake/character-speakers.ts';
import { batchAuthors, batchToolContext } from './batch-context.ts';
import { CarriedTail, type ClaimCarrier } from './carried-tail.ts';
import { TURN_START_RETRY_MS } from './database-turn-journal.ts';
import type { ScheduledTurn } from './channel-turn-scheduler.ts';
import { streamWithOverflowRetry, type FinalAttempt } from './overflow-retry.ts';
import {
  isSilencedTurn,
  nextSceneTurn,
  NOTHING_SAID,
  sceneCast,
  stoppedByName,
} from './scene-turns.ts';
import { acknowledgeStop } from './stop-acknowledgement.ts';
import { accountTurn, accountUsage } from './turn-accounting.ts';
import { NO_TOOLS, streamTurn } from './turn-stream.ts';
import { hearTurn, speechOf } from './turn-speech.ts';
import { userTurnsOf } from './user-turn-recording.ts';
import type { UserTurnInput } from '../../db/turn-repository.ts';
import type { PrefetchedStart, TurnStartPrefetch } from '../context/turn-start-prefetch.ts';
import type { TurnJournalStart } from '../../stream/turn/turn-journal.ts';

/** A batch of accepted messages in one channel, answered as one turn. */
export type Turn = ScheduledTurn<AcceptedMessage>;

export interface TurnRunnerOptions {
  db: Database;
  secretBox: SecretBox;
  providers: ProviderFactory;
  tools: ToolExecutor;
  orchestrator: StreamOrchestrator;
  history: ChannelHistory;
  /** Delivered replies whose record failed (the journal holds them): the next turn sees them. */
  unrecorded?: UnrecordedReplies;
  /** Writes a turn's opening beside its context read: the orchestrator's journal. */
  journal: TurnOpening;
  /** Start reads intake began; every turn takes its channel's at its start. */
  prefetch?: TurnStartPrefetch | undefined;
  /** The one write path to channels: replies and failure notices alike. */
  delivery: DeliveryPort;
  typing: TypingAllowance;
  stops: StopRegistry;
  dailyBudget: DailyBudget;
  clock: Clock;
  logger: Logger;
  metrics: BotMetrics;
  botUserId: string;
  download: Download;
  /** Voice messages in and out; undefined when the operator set up no speech. */
  speech?: SpeechService | undefined;
  /** Aborted at shutdown: live turns stop and are recorded. */
  shutdownSignal: AbortSignal;
  /** The members have seen the outcome of these messages (claims-ledger). */
  settle(messageIds: readonly string[]): void;
  /** Messages a delivered reply answered in passing: settled, not answered again. */
  inPassing?: AnsweredInPassing;
  /** Records owed messages a request carries, before its reply's first write (carried-tail.ts). */
  carrier?: ClaimCarrier;
  /** Background work after a turn (the rolling summary); must return at once. */
  afterTurn?(turn: { channelId: string; scopeId: string }): void;
  /** Scenes: the next character's turn is built here and queued in the channel behind this one. */
  scenes?: { speakers: CharacterSpeakers; submit(next: AcceptedMessage): void };
}

/** A journal whose start is written ahead of the stream, with the user turns (DatabaseTurnJournal). */
export interface TurnOpening {
  begin(turn: TurnJournalStart, userTurns: readonly UserTurnInput[]): void;
  /** The turn ended: a start its stream never took is undone. */
  abandon(turnId: string): Promise<void>;
}

/** The owed messages addressed to the bot that a request shows the model as unanswered. */
function carriedBy(prepared: PreparedTurn, request: ChatRequest): readonly string[] {
  const tail = prepared.unansweredBefore;
  return tail.addressed.length === 0 ? [] : seenUnanswered(tail, request).addressed;
}

/** The journal start the stream makes for a turn, from its tool context. */
function journalStartOf(context: ToolContext): TurnJournalStart {
  return {
    turnId: context.turnId,
    scopeId: context.scopeId,
    channelId: context.channelId,
    triggerMessageId: context.messageId,
    speaker: context.character,
  };
}

/** A turn once it runs: its facts (those of its newest message), its log and its stop signal. */
interface RunningTurn {
  id: string;
  batch: readonly AcceptedMessage[];
  last: AcceptedMessage;
  facts: TurnFacts;
  logger: Logger;
  /** Aborted by a stop, by the channel lock's hold timeout, by the watchdog, or at shutdown. */
  signal: AbortSignal;
  /** Tells the scheduler's watchdog the turn reached its model call. */
  begun: () => void;
  /** The start read intake began for the turn's message, if one was. */
  prefetched: PrefetchedStart | undefined;
  /** Owed messages its request carries, recorded before each attempt's stream. */
  carried: CarriedTail;
}

/**
 * Runs one turn for a batch of accepted messages in a channel (the scheduler holds the
 * channel's lease), in steps: register it as stoppable → resolve the scope's model → record the
 * members' messages → assemble the context and stream the reply (again with less history after
 * a context overflow) → settle: count its tokens, show a failure as a short localized message
 * with a Retry button, and after a natural stop run the in-persona acknowledgement.
 */
export class TurnRunner {
  private readonly options: TurnRunnerOptions;

  constructor(options: TurnRunnerOptions) {
    this.options = options;
  }

  async run(scheduled: Turn): Promise<void> {
    const turn = this.stillOwed(scheduled);
    // Taken before anything else: a read begun before this turn is of no later turn's use.
    const prefetched = this.options.prefetch?.take(
      turn.channelId,
      turn.batch.map((accepted) => accepted.message.id),
    );
    const last = turn.batch.at(-1);
    if (last === undefined) return;
    const { facts } = last;
    const logger = this.options.logger.child({
      turnId: turn.id,
      channelId: turn.channelId,
      scopeId: facts.scope.id,
      messageId: last.message.id,
    });
    let live: LiveTurn | undefined;
    let stopTimer: (() => void) | undefined;
    const carried = new CarriedTail({
      carrier: this.options.carrier,
      channelId: turn.channelId,
      replyTo: last.message.id,
      logger,
    });
    try {
      if (isSilencedTurn(last)) {
        this.skipSilenced(last, logger);
        return;
      }
      // Stoppable from here on, by every member the batch answers: a stop or /reset while the
      // context is still being assembled is honoured, not lost.
      live = this.options.stops.begin({
        channelId: turn.channelId,
        turnId: turn.id,
        requesterIds: batchAuthors(turn.batch).map((author) => author.id),
        cast: sceneCast(facts),
      });
      stopTimer = timeStop({ ...this.options, signal: live.signal });
      const signal = AbortSignal.any([
        live.signal,
        turn.lease.signal,
        turn.signal,
        this.options.shutdownSignal,
      ]);
      await this.answer({
        id: turn.id,
        batch: turn.batch,
        last,
        facts,
        logger,
        signal,
        begun: turn.begun,
        prefetched,
        carried,
      });
    } finally {
      await this.options.journal.abandon(turn.id);
      live?.end();
      stopTimer?.();
      // Answered, refused or stopped: nothing is owed any more, for the batch nor for what its
      // request carried unclaimed. A turn cut short by shutdown stays owed, and the next start
      // tells its members (unanswered-recovery.ts).
      if (!this.options.shutdownSignal.aborted) {
        this.options.settle([
          ...turn.batch.map((accepted) => accepted.message.id),
          ...carried.made,
        ]);
      }
    }
  }

  /** The batch without what an earlier reply answered in passing (settled here: told, in effect). */
  private stillOwed(turn: Turn): Turn {
    if (this.options.inPassing === undefined) return turn;
    const { owed, answered } = this.options.inPassing.split(turn.batch);
    if (answered.length === 0) return turn;
    this.options.settle(answered.map((message) => message.messageId));
    this.options.logger.info(
      { channelId: turn.channelId, answered },
      'messages already answered in passing by an earlier reply: not answered again',
    );
    return { ...turn, batch: owed };
  }

  private async answer(running: RunningTurn): Promise<void> {
    const model = await this.resolveModel(running);
    if (model === undefined) return;
    const turn = await this.hear(running);
    if (turn === undefined) return;
    const toolContext = batchToolContext({ ...turn, model });
    // The members' messages and the reply's row, written while the context is assembled (it
    // reads only the bot's replies); the stream's start awaits the write.
    this.options.journal.begin(journalStartOf(toolContext), userTurnsOf(turn.batch));
    const tools = model.info.tools ? this.options.tools : NO_TOOLS;
    const attempt = await this.streamReply(turn, { model, tools, toolContext });
    if (attempt !== undefined) await this.settle(turn, { model, toolContext, attempt });
    // Stopped by name before its reply began: the others of the scene still speak.
    else this.continueScene(turn, NOTHING_SAID);
  }

  /** A scene turn whose character a member's stop named while it waited: it hands on. */
  private skipSilenced(last: AcceptedMessage, logger: Logger): void {
    logger.info(
      { speaker: last.facts.speaker?.character.name },
      'a stop named this character: its scene turn is skipped',
    );
    const next =
      this.options.scenes &&
      nextSceneTurn(last, NOTHING_SAID, this.options.scenes.speakers, { stoppedByName: true });
    if (next !== undefined) this.options.scenes?.submit(next);
  }

  /**
   * The turn with its voice messages as text; undefined when one could not be heard (the member
   * was told why: too long, no speech service, a provider failure with Retry) or it was stopped.
   */
  private async hear(turn: RunningTurn): Promise<RunningTurn | undefined> {
    const heard = await hearTurn(this.options, turn);
    if (heard.ok) {
      const last = heard.batch.at(-1) ?? turn.last;
      return { ...turn, batch: heard.batch, last };
    }
    if (turn.signal.aborted) return undefined;
    await this.tellFailure(turn, heard.error);
    return undefined;
  }

  /** The scope's provider and model, with its key; a missing or unusable key is told. */
  private async resolveModel(turn: RunningTurn): Promise<ResolvedModel | undefined> {
    const { providers, secretBox } = this.options;
    const { settings } = turn.facts;
    try {
      return providers.resolve({
        provider: settings.provider,
        model: settings.model,
        apiKey: openApiKey({
          box: secretBox,
          settings,
          // A key belongs to one vendor: it is opened only for the one the scope resolves to.
          provider: providers.target(settings).provider,
        }),
      });
    } catch (error) {
      await this.tellFailure(turn, notConfigured(error));
      return undefined;
    }
  }

  /**
   * Assembles the context and streams the reply. Undefined when the turn ended before a reply
   * began: stopped meanwhile, or failed (the member was told).
   */
  private async streamReply(
    turn: RunningTurn,
    step: {
      model: ResolvedModel;
      tools: ToolExecutor;
      toolContext: ToolContext;
    },
  ): Promise<FinalAttempt | undefined> {
    const { model, tools, toolContext } = step;
    const { logger, signal, facts } = turn;
    try {
      const prepared = await this.prepare(turn, model);
      const attempt = await streamWithOverflowRetry({
        prepared,
        model,
        toolSpecs: tools.specs(toolContext),
        signal,
        logger,
        stream: async (request) => {
          turn.begun();
          await turn.carried.carry(carriedBy(prepared, request));
          return streamTurn(this.options, {
            turnId: turn.id,
            model,
            request,
            tools,
            toolContext,
            facts,
            replyTo: turn.last.message.id,
            signal,
            stoppable: true,
            logger,
            ...speechOf(this.options, turn),
          });
        },
        countOverflowed: (outcome) =>
          accountUsage(
            { ...this.options, logger },
            {
              scopeId: facts.scope.id,
              memberId: turn.last.message.authorId,
              characterId: facts.speaker?.character.id,
              outcome,
              model,
            },
          ),
      });
      if (attempt?.outcome.status === 'complete') this.answeredInPassing(turn, prepared, attempt);
      return attempt;
    } catch (error) {
      if (signal.aborted) {
        logger.info({ reason: describeAbort(signal.reason) }, 'stopped before the reply started');
        return undefined;
      }
      await this.tellFailure(turn, error);
      return undefined;
    }
  }

  /** The turn's context: what the speaker sees of the channel, its memories and persona. */
  private prepare(turn: RunningTurn, model: ResolvedModel): Promise<PreparedTurn> {
    const { logger, signal, facts } = turn;
    return prepareTurn({
      ...this.options,
      settings: facts.settings,
      model,
      // In a scene, the replies spoken since the member's message are answered too.
      messages: [...turn.batch.map((accepted) => accepted.message), ...(facts.scene?.spoken ?? [])],
      speakerName: facts.speaker?.character.name,
      speakerId: facts.speaker?.character.id,
      turnId: turn.id,
      place: facts.place.persona,
      prefetched: turn.prefetched,
      now: new Date(this.options.clock.now()),
      logger,
      signal,
      // A database restart under a turn is waited out, not told as a failure.
      hold: (read) =>
        retryTransient(read, {
          clock: this.options.clock,
          signal,
          maxElapsedMs: TURN_START_RETRY_MS,
        }),
    });
  }

  /**
   * The reply was delivered whole: the unanswered tail it saw is answered. Messages in it that
   * may be owed (addressed to the bot) are settled too — one handed back at a shutdown during
   * this turn must not be answered again by the next start.
   */
  private answeredInPassing(
    turn: RunningTurn,
    prepared: PreparedTurn,
    attempt: FinalAttempt,
  ): void {
    const channelId = turn.facts.place.channelId;
    const seen = seenUnanswered(prepared.unansweredBefore, attempt.request);
    this.options.inPassing?.note(turn.id, { channelId, ...seen });
  }

  /** After the reply: its tokens and metrics, a failure told, a natural stop acknowledged. */
  private async settle(
    turn: RunningTurn,
    step: { model: ResolvedModel; toolContext: ToolContext; attempt: FinalAttempt },
  ): Promise<void> {
    const { outcome, request } = step.attempt;
    const { facts, logger } = turn;
    const scopeId = facts.scope.id;
    // A coalesced batch counts for the member whose message it answered last.
    const memberId = turn.last.message.authorId;
    await accountTurn(
      { ...this.options, logger },
      {
        scopeId,
        memberId,
        characterId: facts.speaker?.character.id,
        outcome,
        model: step.model,
      },
    );
    this.options.afterTurn?.({ channelId: facts.place.channelId, scopeId });
    if (outcome.status === 'failed' && outcome.error !== undefined && !turn.signal.aborted) {
      await this.tellFailure(turn, outcome.error);
    }
    if (outcome.stop !== undefined && !this.options.shutdownSignal.aborted) {
      await acknowledgeStop(this.options, {
        outcome,
        request,
        model: step.model,
        facts,
        toolContext: step.toolContext,
        logger,
      });
    }
    this.continueScene(turn, outcome);
  }

  /**
   * A scene goes on with its next character, queued behind this turn in the channel — also
   * after a stop that named this turn's character ("Alice, stop"), never after any other stop.
   */
  private continueScene(
    turn: RunningTurn,
    outcome: Pick<FinalAttempt['outcome'], 'status' | 'content' | 'messageIds'>,
  ): void {
    const { scenes } = this.options;
    const byName = stoppedByName(turn.signal);
    if (scenes === undefined || (turn.signal.aborted && !byName)) return;
    if (this.options.shutdownSignal.aborted) return;
    const next = nextSceneTurn(turn.last, outcome, scenes.speakers, { stoppedByName: byName });
    if (next === undefined) return;
    turn.logger.debug({ speaker: next.facts.speaker?.character.name }, 'the scene goes on');
    scenes.submit(next);
  }

  private tellFailure(turn: RunningTurn, error: unknown): Promise<void> {
    return postFailureNotice({
      error,
      replyTo: turn.last.message.id,
      writer: this.options.delivery.to(turn.facts.place.target),
      locale: turn.facts.locale,
      logger: turn.logger,
    });
  }
}

function describeAbort(reason: unknown): string {
  if (typeof reason === 'object' && reason !== null && 'kind' in reason) return String(reason.kind);
  return reason instanceof Error ? reason.message : 'aborted';
}
