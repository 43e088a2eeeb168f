import { randomUUID } from 'node:crypto';
import type { ChatRequest } from '../core/chat.ts';
import type { Clock } from '../core/clock.ts';
import { ProviderError } from '../core/errors.ts';
import type { Logger } from '../core/logger.ts';
import type { ScopeSettings } from '../core/settings.ts';
import type { ToolContext, ToolExecutor } from '../core/tool.ts';
import type { Database } from '../db/database.ts';
import { openApiKey } from '../db/scope-settings-repository.ts';
import { recordUserTurn } from '../db/turn-repository.ts';
import type { MetricsRegistry } from '../metrics/metrics-registry.ts';
import type { ProviderFactory, ResolvedModel } from '../providers/provider-factory.ts';
import type { SecretBox } from '../security/secret-box.ts';
import { buildStopAcknowledgementRequest } from '../stream/stop-acknowledgement.ts';
import type { StopRegistry } from '../stream/stop-registry.ts';
import type { StreamOrchestrator, TurnOutcome } from '../stream/stream-orchestrator.ts';
import type { ChannelLease } from './channel-locks.ts';
import type { ChannelHistory } from './channel-history.ts';
import type { DailyBudget } from './daily-budget.ts';
import { DiscordSink } from './delivery/discord-sink.ts';
import { allowedMentionsFor, type MessageTarget } from './delivery/message-target.ts';
import type { TypingAllowance } from './delivery/typing-allowance.ts';
import type { WriteBudgets } from './delivery/write-budgets.ts';
import { resolveLocale, type Locale } from './i18n/locale.ts';
import { translate } from './i18n/messages.ts';
import type { PersonaContext } from './persona.ts';
import type { Download } from './trigger-attachments.ts';
import type { Trigger } from './trigger.ts';
import { buildRequest, prepareTurn } from './turn-context.ts';
import { notConfigured, postFailureNotice } from './failure-notice.ts';
import { accountTurn } from './turn-accounting.ts';

/** Context-overflow retries, each with one more of the oldest history entries dropped (seed 004). */
const MAX_OVERFLOW_RETRIES = 3;
/** Feature flag: let the model's replies ping members (never roles, @everyone or @here). */
export const ALLOW_USER_MENTIONS_FLAG = 'allowUserMentions';
const DISCORD_MESSAGE_LIMIT = 2000;

const NO_TOOLS: ToolExecutor = {
  specs: () => [],
  execute: () => Promise.resolve({ ok: false, error: 'tools are not available' }),
};

/** Where a turn is delivered, resolved by the edge from the Discord channel. */
export interface TurnPlace {
  target: MessageTarget;
  persona: PersonaContext['place'];
  guildLocale: string | undefined;
}

export interface TurnRunnerOptions {
  db: Database;
  secretBox: SecretBox;
  providers: ProviderFactory;
  tools: ToolExecutor;
  orchestrator: StreamOrchestrator;
  history: ChannelHistory;
  budgets: WriteBudgets;
  typing: TypingAllowance;
  stops: StopRegistry;
  dailyBudget: DailyBudget;
  clock: Clock;
  logger: Logger;
  metrics: MetricsRegistry | undefined;
  botUserId: string;
  download: Download;
  /** Aborted at shutdown: live turns stop and are recorded. */
  shutdownSignal: AbortSignal;
  loadSettings(scopeId: string): Promise<ScopeSettings>;
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
    const settings = await this.options.loadSettings(scopeId);
    const locale = resolveLocale(settings.language, place.guildLocale);
    const logger = this.options.logger.child({ channelId, scopeId, messageId: last.message.id });
    const signal = AbortSignal.any([lease.signal, this.options.shutdownSignal]);

    let model: ResolvedModel;
    try {
      model = this.options.providers.resolve({
        provider: settings.provider,
        model: settings.model,
        apiKey: openApiKey(this.options.secretBox, settings),
      });
    } catch (error) {
      await postFailureNotice({
        error: notConfigured(error),
        trigger: last,
        place,
        locale,
        logger,
      });
      return;
    }
    // Recorded while the context is assembled (it reads only the bot's replies); never throws.
    const recorded = this.recordUserTurns(batch, scopeId, logger);

    const toolContext = (turnId: string): ToolContext => ({
      scopeId,
      guildId: last.message.guildId,
      channelId,
      userId: last.message.authorId,
      messageId: last.message.id,
      turnId,
      memberPermissions: last.memberPermissions,
      locale,
      timeZone: settings.timezone,
      featureFlags: settings.featureFlags,
      providerCapabilities: model.info.vision ? ['images'] : [],
    });
    const tools = model.info.tools ? this.options.tools : NO_TOOLS;

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
      for (let attempt = 0; attempt <= MAX_OVERFLOW_RETRIES; attempt += 1) {
        const turnId = randomUUID();
        const built = buildRequest({
          prepared,
          model,
          tools,
          toolContext: toolContext(turnId),
          dropOldest: attempt,
        });
        request = built.request;
        outcome = await this.stream({
          turnId,
          model,
          request,
          tools,
          toolContext: toolContext(turnId),
          settings,
          place,
          replyTo: last.message.id,
          requesterId: last.message.authorId,
          locale,
          signal,
        });
        const overflow =
          outcome.error instanceof ProviderError && outcome.error.kind === 'context_overflow';
        if (!overflow || outcome.messageIds.length > 0 || built.includedHistory - attempt <= 0)
          break;
        logger.info(
          { attempt, includedHistory: built.includedHistory },
          'context overflow: retrying with less history',
        );
      }
    } catch (error) {
      await postFailureNotice({ error, trigger: last, place, locale, logger });
      return;
    }
    if (outcome === undefined || request === undefined) return;
    await accountTurn(
      { dailyBudget: this.options.dailyBudget, metrics: this.options.metrics, logger },
      { scopeId, outcome, model },
    );
    this.options.afterTurn?.({ channelId, scopeId });
    if (outcome.status === 'failed' && outcome.error !== undefined && !signal.aborted) {
      await postFailureNotice({ error: outcome.error, trigger: last, place, locale, logger });
    }
    if (outcome.stop !== undefined && !this.options.shutdownSignal.aborted) {
      await this.acknowledgeStop({
        outcome,
        request,
        model,
        settings,
        place,
        locale,
        toolContext,
        logger,
      });
    }
  }

  private async stream(options: {
    turnId: string;
    model: ResolvedModel;
    request: ChatRequest;
    tools: ToolExecutor;
    toolContext: ToolContext;
    settings: ScopeSettings;
    place: TurnPlace;
    replyTo: string;
    requesterId: string;
    locale: Locale;
    signal: AbortSignal;
  }): Promise<TurnOutcome> {
    const live = this.options.stops.begin({
      channelId: options.toolContext.channelId,
      turnId: options.turnId,
      requesterId: options.requesterId,
    });
    const sink = new DiscordSink({
      target: options.place.target,
      budgets: this.options.budgets,
      typing: this.options.typing,
      clock: this.options.clock,
      logger: this.options.logger,
      allowedMentions: allowedMentionsFor({
        allowUserMentions: options.settings.featureFlags[ALLOW_USER_MENTIONS_FLAG] === true,
      }),
      replyTo: options.replyTo,
      limit: DISCORD_MESSAGE_LIMIT,
    });
    try {
      return await this.options.orchestrator.run({
        turnId: options.turnId,
        model: options.model.chatModel,
        request: options.request,
        tools: options.tools,
        toolContext: options.toolContext,
        sink,
        humanizerDegree: options.settings.humanizerDegree,
        deliveryMode: options.settings.deliveryMode,
        signal: AbortSignal.any([live.signal, options.signal]),
        describeTool: (call) =>
          `-# ${translate(options.locale, 'status.tool', { tool: call.name })}`,
      });
    } finally {
      live.end();
    }
  }

  private async acknowledgeStop(options: {
    outcome: TurnOutcome;
    request: ChatRequest;
    model: ResolvedModel;
    settings: ScopeSettings;
    place: TurnPlace;
    locale: Locale;
    toolContext: (turnId: string) => ToolContext;
    logger: Logger;
  }): Promise<void> {
    const stop = options.outcome.stop;
    if (stop === undefined) return;
    const turnId = randomUUID();
    const acknowledgement = await this.stream({
      turnId,
      model: options.model,
      request: buildStopAcknowledgementRequest({
        request: options.request,
        interruptedText: stop.interruptedText,
        stop: stop.request,
      }),
      tools: NO_TOOLS,
      toolContext: { ...options.toolContext(turnId), messageId: stop.request.messageId },
      settings: options.settings,
      place: options.place,
      replyTo: stop.request.messageId,
      requesterId: stop.request.authorId,
      locale: options.locale,
      signal: this.options.shutdownSignal,
    });
    options.logger.info({ turnId, status: acknowledgement.status }, 'acknowledged a stop');
  }

  private async recordUserTurns(
    batch: readonly Trigger[],
    scopeId: string,
    logger: Logger,
  ): Promise<void> {
    for (const trigger of batch) {
      await recordUserTurn(this.options.db, {
        id: randomUUID(),
        scopeId,
        channelId: trigger.message.channelId,
        authorId: trigger.message.authorId,
        authorName: trigger.message.authorName,
        messageId: trigger.message.id,
        content: trigger.message.content,
      }).catch((error: unknown) => logger.warn({ err: error }, 'could not record the user turn'));
    }
  }
}
