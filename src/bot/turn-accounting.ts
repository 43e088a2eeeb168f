import type { Logger } from '../core/logger.ts';
import type { MetricsRegistry } from '../metrics/metrics-registry.ts';
import type { ResolvedModel } from '../providers/provider-factory.ts';
import type { TurnOutcome } from '../stream/stream-orchestrator.ts';
import type { DailyBudget } from './daily-budget.ts';

/**
 * After a turn: its tokens count against the scope's daily budget, the Prometheus counters
 * move, and the one info line of the turn is logged (latency, usage, finish reason).
 */
export async function accountTurn(
  options: {
    dailyBudget: DailyBudget;
    metrics: MetricsRegistry | undefined;
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
  const labels = { provider: model.provider, status: outcome.status };
  options.metrics?.increment('bot_turns_total', 'Turns by provider and final status', labels);
  options.metrics?.increment(
    'bot_tokens_total',
    'Tokens spent',
    { direction: 'input' },
    metrics.inputTokens,
  );
  options.metrics?.increment(
    'bot_tokens_total',
    'Tokens spent',
    { direction: 'output' },
    metrics.outputTokens,
  );
  if (metrics.timeToFirstTokenMs !== null) {
    options.metrics?.observe(
      'bot_first_token_ms',
      'Time to first token',
      metrics.timeToFirstTokenMs,
      { provider: model.provider },
    );
  }
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
