import type { ChatRequest } from '../../core/chat.ts';
import type { Logger } from '../../core/logger.ts';
import type { BotMetrics } from '../../core/metrics.ts';
import { timeOrderedId } from '../../core/time-ordered-id.ts';
import type { ToolContext } from '../../core/tool.ts';
import type { ResolvedModel } from '../../providers/provider-factory.ts';
import { buildStopAcknowledgementRequest } from '../../stream/stop/stop-acknowledgement.ts';
import type { StopRegistry } from '../../stream/stop/stop-registry.ts';
import type { TurnOutcome } from '../../stream/turn/stream-orchestrator.ts';
import type { TurnFacts } from '../intake/accepted-message.ts';
import type { DailyBudget } from '../limits/daily-budget.ts';
import { accountUsage } from './turn-accounting.ts';
import { NO_TOOLS, streamTurn, type TurnStreamDependencies } from './turn-stream.ts';

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
 * It is a turn of its own (its own id and record): it answers the stop message, not the batch.
 */
export async function acknowledgeStop(
  dependencies: StopAcknowledgementDependencies,
  options: {
    outcome: TurnOutcome;
    request: ChatRequest;
    model: ResolvedModel;
    facts: TurnFacts;
    toolContext: ToolContext;
    logger: Logger;
  },
): Promise<void> {
  const stop = options.outcome.stop;
  if (stop === undefined) return;
  const turnId = timeOrderedId();
  const logger = options.logger.child({ acknowledgementTurnId: turnId });
  // The acknowledgement answers the member who stopped: they (or a moderator) may stop it too.
  const live = dependencies.stops.begin({
    channelId: options.toolContext.channelId,
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
    toolContext: { ...options.toolContext, turnId, messageId: stop.request.messageId },
    facts: options.facts,
    replyTo: stop.request.messageId,
    signal: AbortSignal.any([live.signal, dependencies.shutdownSignal]),
    stoppable: false,
    logger,
  }).finally(() => live.end());
  await accountUsage(
    { dailyBudget: dependencies.dailyBudget, metrics: dependencies.metrics, logger },
    {
      scopeId: options.facts.scope.id,
      memberId: stop.request.authorId,
      outcome: acknowledgement,
      model: options.model,
    },
  );
  const { inputTokens, outputTokens } = acknowledgement.metrics;
  logger.info({ status: acknowledgement.status, inputTokens, outputTokens }, 'acknowledged a stop');
}
