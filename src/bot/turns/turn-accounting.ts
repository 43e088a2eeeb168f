import type { Logger } from '../../core/logger.ts';
import type { BotMetrics } from '../../core/metrics.ts';
import type { ResolvedModel } from '../../providers/provider-factory.ts';
import { tokenCost } from '../../providers/model-price.ts';
import { usageCounterFor } from '../../providers/token-counter.ts';
import type { TurnOutcome } from '../../stream/turn/stream-orchestrator.ts';
import type { UsageEstimator } from '../../stream/turn/usage-estimator.ts';
import type { DailyBudget } from '../limits/daily-budget.ts';

export interface AccountingOptions {
  dailyBudget: DailyBudget;
  metrics: BotMetrics;
  logger: Logger;
}

/**
 * Counts for model calls the provider reports no usage for: the model's tokenizer when a turn
 * loaded it (shared with the context's, so the history's texts are not counted again), else
 * the tokenizer-free estimate (usageCounterFor).
 */
export function usageEstimatorFor(model: ResolvedModel): UsageEstimator {
  return {
    input: (request) => usageCounterFor(model.info).countRequest(request),
    output: (message) => usageCounterFor(model.info).countMessages([message]),
  };
}

/**
 * After a turn: its tokens count against the scope's daily budget, the metrics move, and the
 * one info line of the turn is logged (latency, usage, finish reason).
 */
export async function accountTurn(options: AccountingOptions, turn: AccountedCall): Promise<void> {
  const { outcome, model } = turn;
  const { logger } = options;
  const { metrics } = outcome;
  await accountUsage(options, { ...turn, turns: 1 });
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
      provider: model.provider,
      model: model.modelId,
      status: outcome.status,
      messages: outcome.messageIds.length,
      inputTokens: metrics.inputTokens,
      outputTokens: metrics.outputTokens,
      estimatedUsageCalls: metrics.estimatedUsageCalls,
      timeToFirstTokenMs: metrics.timeToFirstTokenMs,
      timeToFirstMessageMs: metrics.timeToFirstMessageMs,
      durationMs: metrics.durationMs,
      finishReason: metrics.finishReason,
      tools: metrics.tools.length,
    },
    'turn finished',
  );
}

/** A model call to account: whose scope and member, which model, what it spent. */
export interface AccountedCall {
  scopeId: string;
  /** The member whose message it answered. */
  memberId: string;
  outcome: TurnOutcome;
  model: ResolvedModel;
  /** The character who spoke the turn; undefined when the bot spoke as itself. */
  characterId?: string | undefined;
}

/**
 * A model call's tokens and cost, at the model's price, against the daily budgets and in the
 * usage `/usage` shows. Calls that are not a turn of their own (a stop acknowledgement, an
 * attempt retried after a context overflow) count with `turns: 0`.
 */
export async function accountUsage(
  options: AccountingOptions,
  call: AccountedCall & { turns?: number },
): Promise<void> {
  const { inputTokens, outputTokens, cachedInputTokens } = call.outcome.metrics;
  const cost = tokenCost({ inputTokens, outputTokens, cachedInputTokens }, call.model.info.price);
  await options.dailyBudget
    .record(call.scopeId, {
      inputTokens,
      outputTokens,
      cachedInputTokens,
      cost,
      memberId: call.memberId,
      model: call.model.modelId,
      turns: call.turns ?? 0,
      characterId: call.characterId,
    })
    .catch((error: unknown) => options.logger.warn({ err: error }, 'could not record token usage'));
}

/** Speech a turn used: the voice messages heard, or the reply spoken. */
export interface AccountedSpeech {
  scopeId: string;
  memberId: string;
  /** The speech model, as `/usage` lists it. */
  model: string;
  seconds?: number;
  characters?: number;
  /** Nano-dollars at the speech model's price. */
  cost: number;
}

/**
 * Speech against the daily budgets and in `/usage`, a row per speech model beside the chat
 * models' (seconds heard or characters spoken, and their cost); never a turn of its own.
 */
export async function accountSpeech(
  options: AccountingOptions,
  speech: AccountedSpeech,
): Promise<void> {
  await options.dailyBudget
    .record(speech.scopeId, {
      inputTokens: 0,
      outputTokens: 0,
      cost: speech.cost,
      memberId: speech.memberId,
      model: speech.model,
      turns: 0,
      speechSeconds: speech.seconds ?? 0,
      speechCharacters: speech.characters ?? 0,
    })
    .catch((error: unknown) =>
      options.logger.warn({ err: error }, 'could not record speech usage'),
    );
}
