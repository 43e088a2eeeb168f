import { timeOrderedId } from '../../core/time-ordered-id.ts';
import type { ChatMessage, ChatRequest } from '../../core/chat.ts';
import type { Clock } from '../../core/clock.ts';
import { ProviderError } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';
import type { BotMetrics } from '../../core/metrics.ts';
import type { ScopeSettings } from '../../core/settings.ts';
import type { ToolExecutor } from '../../core/tool.ts';
import type { Database } from '../../db/database.ts';
import { openApiKey } from '../../db/scope-settings-repository.ts';
import type { ProviderFactory, ResolvedModel } from '../../providers/provider-factory.ts';
import type { SecretBox } from '../../security/secret-box.ts';
import type { StopRegistry } from '../../stream/stop/stop-registry.ts';
import type { StreamOrchestrator, TurnOutcome } from '../../stream/turn/stream-orchestrator.ts';
import { batchAuthors, batchToolContext } from './batch-context.ts';
import type { ChannelLease } from './channel-locks.ts';
import type { ChannelHistory } from '../context/channel-history.ts';
import type { DailyBudget } from '../limits/daily-budget.ts';
import type { DeliveryPort } from '../delivery/delivery-port.ts';
import type { TypingAllowance } from '../delivery/typing-allowance.ts';
import { resolveLocale, type Locale } from '../i18n/locale.ts';
import { acknowledgeStop } from '../stops/stop-acknowledgement-turn.ts';
import type { Download } from '../context/trigger-attachments.ts';
import type { Trigger } from '../intake/trigger.ts';
import { buildRequest, prepareTurn } from '../context/turn-context.ts';
import { postFailureNotice } from '../delivery/failure-notice.ts';
import { notConfigured } from '../i18n/member-text.ts';
import { accountTurn, accountUsage } from './turn-accounting.ts';
import type { TurnPlace } from './turn-place.ts';
import { NO_TOOLS, streamTurn } from './turn-stream.ts';
import { recordUserTurns } from './user-turn-recording.ts';
import { completedToolRounds, MAX_OVERFLOW_RETRIES, overflowDrop } from './overflow-retry.ts';
import { timeStop } from '../stops/stop-latency.ts';

/** Feature flag: let the model's replies ping members (never roles, @everyone or @here). */
export { ALLOW_USER_MENTIONS_FLAG } from '../settings/reply-switches.ts';
export type { TurnPlace } from './turn-place.ts';

export interface TurnRunnerOptions {
  db: Database;
  secretBox: SecretBox;
  providers: ProviderFactory;
  tools: ToolExecutor;
  orchestrator: StreamOrchestrator;
  history: ChannelHistory;
  delivery: DeliveryPort;
  typing: TypingAllowance;
  stops: StopRegistry;
  dailyBudget: DailyBudget;
  clock: Clock;
  logger: Logger;
  metrics: BotMetrics;
  botUserId: string;
  download: Download;
  /** Aborted at shutdown: live turns stop and are recorded. */
  shutdownSignal: AbortSignal;
  /** The scope's settings as they apply in the channel (its own persona and humanizer win). */
  loadSettings(scopeId: string, channelId: string): Promise<ScopeSettings>;
  /** The members have seen the outcome of these messages (claims-ledger). */
  settle(messageIds: readonly string[]): void;
  placeOf(channelId: string): Promise<TurnPlace | undefined>;
  /** Background work after a turn (the rolling summary); must return at once. */
  afterTurn?(turn: { channelId: string; scopeId: string }): void;
}

/**
 * Runs one turn for a batch of triggers in a channel (the scheduler holds the channel's lease):
 * resolve the scope's model, assemble the context under its token budget, stream through the
 * orchestrator into a Discord sink, retry a context overflow with less history, show a failure
 * as a short localized message with a Retry button, and after a natural stop run the
 * in-persona acknowledgement.
 */
export class TurnRunner {
  private readonly options: TurnRunnerOptions;

  constructor(options: TurnRunnerOptions) {
    this.options = options;
  }

  async run(channelId: string, batch: readonly Trigger[], lease: ChannelLease): Promise<void> {
    const last = batch.at(-1);
    const place = await this.options.placeOf(channelId);
    if (last === undefined || place === undefined) return;
    const scopeId = last.message.guildId ?? last.message.authorId;
    const settings = await this.options.loadSettings(scopeId, channelId);
    const locale = resolveLocale(settings.language, place.guildLocale);
    const logger = this.options.logger.child({ channelId, scopeId, messageId: last.message.id });
    // Stoppable from here on, by every member the batch answers: a stop or /reset while the
    // context is still being assembled is honoured, not lost.
    const live = this.options.stops.begin({
      channelId,
      turnId: timeOrderedId(),
      requesterIds: batchAuthors(batch).map((author) => author.id),
    });
    const stopTimer = timeStop({ ...this.options, signal: live.signal });
    try {
      const turn = { channelId, batch, last, place, scopeId, settings, locale, logger };
      await this.runLive({ ...turn, liveTurnId: live.turnId }, [
        live.signal,
        lease.signal,
        this.options.shutdownSignal,
      ]);
    } finally {
      live.end();
      stopTimer();
      // Answered, refused or stopped: nothing is owed any more. A turn cut short by shutdown
      // stays owed, and the next start tells its members (unanswered-recovery.ts).
      if (!this.options.shutdownSignal.aborted) {
        this.options.settle(batch.map((trigger) => trigger.message.id));
      }
    }
  }

  private async runLive(
    turn: {
      channelId: string;
      batch: readonly Trigger[];
      last: Trigger;
      place: TurnPlace;
      scopeId: string;
      settings: ScopeSettings;
      locale: Locale;
      logger: Logger;
      /** The StopRegistry's id of this turn: the reply's Stop button names it. */
      liveTurnId: string;
    },
    signals: AbortSignal[],
  ): Promise<void> {
    const { channelId, batch, last, place, scopeId, settings, locale, logger } = turn;
    const signal = AbortSignal.any(signals);

    let model: ResolvedModel;
    try {
      model = this.options.providers.resolve({
        provider: settings.provider,
        model: settings.model,
        apiKey: openApiKey({
          box: this.options.secretBox,
          settings,
          // A key belongs to one vendor: it is opened only for the one the scope resolves to.
          provider: this.options.providers.target(settings).provider,
        }),
      });
    } catch (error) {
      await postFailureNotice({
        error: notConfigured(error),
        replyTo: last.message.id,
        writer: this.options.delivery.to(place.target),
        locale,
        logger,
      });
      return;
    }
    // Recorded while the context is assembled (it reads only the bot's replies); never throws.
    const recorded = recordUserTurns(this.options.db, { batch, scopeId, logger });

    const toolContext = batchToolContext({
      channelId,
      scopeId,
      batch,
      last,
      settings,
      model,
      locale,
    });
    const tools = model.info.tools ? this.options.tools : NO_TOOLS;
    const accounting = {
      dailyBudget: this.options.dailyBudget,
      metrics: this.options.metrics,
      logger,
    };

    let outcome: TurnOutcome | undefined;
    let request: ChatRequest | undefined;
    try {
      const prepared = await prepareTurn({
        db: this.options.db,
        history: this.options.history,
        settings,
        model,
        batch,
        botUserId: this.options.botUserId,
        place: place.persona,
        now: new Date(this.options.clock.now()),
        download: this.options.download,
        logger,
        signal,
      });
      await recorded;
      // Tool rounds an overflowed attempt completed: the retry carries their results instead
      // of letting the model run them again (a reminder set twice, a fact stored twice).
      let completedRounds: ChatMessage[] = [];
      let firstIncluded: number | undefined;
      for (let attempt = 0; attempt <= MAX_OVERFLOW_RETRIES; attempt += 1) {
        const turnId = timeOrderedId();
        const built = buildRequest({
          prepared,
          model,
          tools,
          toolContext: toolContext(turnId),
          dropOldest: overflowDrop(attempt, firstIncluded),
        });
        firstIncluded ??= built.includedHistory;
        request = {
          ...built.request,
          messages: [...built.request.messages, ...completedRounds],
        };
        outcome = await streamTurn(this.options, {
          turnId,
          model,
          request,
          tools,
          toolContext: toolContext(turnId),
          settings,
          place,
          replyTo: last.message.id,
          locale,
          signal,
          stopTurnId: turn.liveTurnId,
        });
        const overflow =
          outcome.error instanceof ProviderError && outcome.error.kind === 'context_overflow';
        const retry =
          overflow &&
          outcome.messageIds.length === 0 &&
          built.includedHistory > 0 &&
          attempt < MAX_OVERFLOW_RETRIES &&
          !signal.aborted;
        if (!retry) break;
        await accountUsage(accounting, { scopeId, outcome });
        completedRounds = [...completedRounds, ...completedToolRounds(outcome.messages)];
        logger.info(
          { attempt, includedHistory: built.includedHistory },
          'context overflow: retrying with less history',
        );
      }
    } catch (error) {
      if (signal.aborted) {
        logger.info({ reason: describeAbort(signal.reason) }, 'stopped before the reply started');
        return;
      }
      await postFailureNotice({
        error,
        replyTo: last.message.id,
        writer: this.options.delivery.to(place.target),
        locale,
        logger,
      });
      return;
    }
    if (outcome === undefined || request === undefined) return;
    await accountTurn(accounting, { scopeId, outcome, model });
    this.options.afterTurn?.({ channelId, scopeId });
    if (outcome.status === 'failed' && outcome.error !== undefined && !signal.aborted) {
      await postFailureNotice({
        error: outcome.error,
        replyTo: last.message.id,
        writer: this.options.delivery.to(place.target),
        locale,
        logger,
      });
    }
    if (outcome.stop !== undefined && !this.options.shutdownSignal.aborted) {
      await acknowledgeStop(this.options, {
        outcome,
        request,
        model,
        settings,
        place,
        locale,
        toolContext,
        logger,
        scopeId,
      });
    }
  }
}

function describeAbort(reason: unknown): string {
  if (typeof reason === 'object' && reason !== null && 'kind' in reason) return String(reason.kind);
  return reason instanceof Error ? reason.message : 'aborted';
}
