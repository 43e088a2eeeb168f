import type { Logger } from '../core/logger.ts';
import type { BotMetrics } from '../core/metrics.ts';
import type { ResolvedModel } from '../providers/provider-factory.ts';
import type { TurnOutcome } from '../stream/stream-orchestrator.ts';
import type { DailyBudget } from './daily-budget.ts';

/**
 * After a turn: its tokens count against the scope's daily budget, the metrics move, and the
 * one info line of the turn is logged (latency, usage, finish reason).
 */
export async function accountTurn(
  options: {
    dailyBudget: DailyBudget;
    metrics: BotMetrics;
    logger: Logger;
  },
  turn: { scopeId: string; outcome: TurnOutcome; model: ResolvedModel },
): Promise<void> {
  const { scopeId, outcome, model } = turn;
  const { logger } = options;
  const { metrics } = outcome;
  await options.dailyBudget
    .record(scopeId, { inputTokens: metrics.inputTokens, outputTokens: metrics.outputTokens })
    .catch((error: unknown) => logger.warn({ err: error }, 'could not record token usage'));
  options.metrics.turnFinished({
    provider: model.provider,
    model: model.modelId,
    status: outcome.status,
    timeToFirstTokenMs: metrics.timeToFirstTokenMs,
    durationMs: metrics.durationMs,
    inputTokens: metrics.inputTokens,
    outputTokens: metrics.outputTokens,
  });
  logger.info(
    {
      turnId: outcome.turnId,
      provider: model.provider,
      model: model.modelId,
      status: outcome.status,
      messages: outcome.messageIds.length,
      inputTokens: metrics.inputTokens,
      outputTokens: metrics.outputTokens,
      timeToFirstTokenMs: metrics.timeToFirstTokenMs,
      timeToFirstMessageMs: metrics.timeToFirstMessageMs,
      durationMs: metrics.durationMs,
      finishReason: metrics.finishReason,
      tools: metrics.tools.length,
    },
    'turn finished',
  );
}
