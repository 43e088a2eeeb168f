import type { ChatRequest } from '../../core/chat.ts';
import type { Logger } from '../../core/logger.ts';
import type { BotMetrics } from '../../core/metrics.ts';
import type { ScopeSettings } from '../../core/settings.ts';
import { timeOrderedId } from '../../core/time-ordered-id.ts';
import type { ToolContext } from '../../core/tool.ts';
import type { ResolvedModel } from '../../providers/provider-factory.ts';
import { buildStopAcknowledgementRequest } from '../../stream/stop/stop-acknowledgement.ts';
import type { StopRegistry } from '../../stream/stop/stop-registry.ts';
import type { TurnOutcome } from '../../stream/turn/stream-orchestrator.ts';
import type { DailyBudget } from '../limits/daily-budget.ts';
import type { Locale } from '../i18n/locale.ts';
import { accountUsage } from '../turns/turn-accounting.ts';
import type { TurnPlace } from '../turns/turn-place.ts';
import { NO_TOOLS, streamTurn, type TurnStreamDependencies } from '../turns/turn-stream.ts';

export interface StopAcknowledgementDependencies extends TurnStreamDependencies {
  stops: StopRegistry;
  dailyBudget: DailyBudget;
  metrics: BotMetrics;
  /** Aborted at shutdown: no acknowledgement is started or finished after it. */
  shutdownSignal: AbortSignal;
}

/**
 * After a member stopped a reply: a short in-persona acknowledgement that knows what was
 * interrupted, replying to the stop message, counted in the daily budget like any model call.
 */
export async function acknowledgeStop(
  dependencies: StopAcknowledgementDependencies,
  options: {
    outcome: TurnOutcome;
    request: ChatRequest;
    model: ResolvedModel;
    settings: ScopeSettings;
    place: TurnPlace;
    locale: Locale;
    toolContext: (turnId: string) => ToolContext;
    logger: Logger;
    scopeId: string;
  },
): Promise<void> {
  const stop = options.outcome.stop;
  if (stop === undefined) return;
  const turnId = timeOrderedId();
  // The acknowledgement answers the member who stopped: they (or a moderator) may stop it too.
  const live = dependencies.stops.begin({
    channelId: options.toolContext(turnId).channelId,
    turnId,
    requesterIds: [stop.request.authorId],
  });
  const acknowledgement = await streamTurn(dependencies, {
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
    locale: options.locale,
    signal: AbortSignal.any([live.signal, dependencies.shutdownSignal]),
  }).finally(() => live.end());
  await accountUsage(
    {
      dailyBudget: dependencies.dailyBudget,
      metrics: dependencies.metrics,
      logger: options.logger,
    },
    { scopeId: options.scopeId, outcome: acknowledgement },
  );
  const { inputTokens, outputTokens } = acknowledgement.metrics;
  options.logger.info(
    { turnId, status: acknowledgement.status, inputTokens, outputTokens },
    'acknowledged a stop',
  );
}
