import type { Clock } from '../../core/clock.ts';
import type { FinishReason, TokenUsage } from '../../core/stream-part.ts';

export type ToolCallOutcome = 'ok' | 'error' | 'timeout' | 'aborted';

export type ToolCallMetric = { name: string; durationMs: number; outcome: ToolCallOutcome };

/** One turn's numbers, stored with the turn (JSON: absent values are null). */
export type TurnMetrics = {
  durationMs: number;
  /** From the turn's start to the first text or reasoning delta. */
  timeToFirstTokenMs: number | null;
  /** From the turn's start to the first content handed to the sink. */
  timeToFirstMessageMs: number | null;
  /** Output tokens over the time from the first token to the last part. */
  outputTokensPerSecond: number | null;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  reasoningTokens: number;
  /** Model calls made. */
  iterations: number;
  /** Model calls whose tokens are the token counter's estimate (the provider reported none). */
  estimatedUsageCalls: number;
  textDeltas: number;
  textCharacters: number;
  /** Messages (or edit-mode states) handed to the sink. */
  deliveries: number;
  tools: ToolCallMetric[];
  finishReason: FinishReason | null;
  /** The model still wanted tools when the turn's tool budget was spent. */
  toolLimitReached: boolean;
};

export class TurnMetricsRecorder {
  private readonly clock: Clock;
  private readonly startedAt: number;
  private firstTokenAt: number | undefined;
  private firstDeliveryAt: number | undefined;
  private lastPartAt: number | undefined;
  private readonly totals = {
    inputTokens: 0,
    outputTokens: 0,
    cachedInputTokens: 0,
    reasoningTokens: 0,
  };
  iterations = 0;
  estimatedUsageCalls = 0;
  textDeltas = 0;
  textCharacters = 0;
  deliveries = 0;
  finishReason: FinishReason | null = null;
  toolLimitReached = false;
  readonly tools: ToolCallMetric[] = [];

  constructor(clock: Clock) {
    this.clock = clock;
    this.startedAt = clock.now();
  }

  part(): void {
    this.lastPartAt = this.clock.now();
  }

  token(): void {
    this.firstTokenAt ??= this.clock.now();
  }

  delivered(): void {
    this.firstDeliveryAt ??= this.clock.now();
  }

  usage(usage: TokenUsage, options: { estimated: boolean } = { estimated: false }): void {
    if (options.estimated) this.estimatedUsageCalls += 1;
    this.totals.inputTokens += usage.inputTokens;
    this.totals.outputTokens += usage.outputTokens;
    this.totals.cachedInputTokens += usage.cachedInputTokens;
    this.totals.reasoningTokens += usage.reasoningTokens ?? 0;
  }

  snapshot(): TurnMetrics {
    const since = (at: number | undefined): number | null =>
      at === undefined ? null : at - this.startedAt;
    const streamingMs =
      this.firstTokenAt !== undefined && this.lastPartAt !== undefined
        ? this.lastPartAt - this.firstTokenAt
        : 0;
    return {
      durationMs: this.clock.now() - this.startedAt,
      timeToFirstTokenMs: since(this.firstTokenAt),
      timeToFirstMessageMs: since(this.firstDeliveryAt),
      outputTokensPerSecond:
        streamingMs > 0 && this.totals.outputTokens > 0
          ? Math.round((this.totals.outputTokens / streamingMs) * 1000 * 10) / 10
          : null,
      ...this.totals,
      iterations: this.iterations,
      estimatedUsageCalls: this.estimatedUsageCalls,
      textDeltas: this.textDeltas,
      textCharacters: this.textCharacters,
      deliveries: this.deliveries,
      tools: [...this.tools],
      finishReason: this.finishReason,
      toolLimitReached: this.toolLimitReached,
    };
  }
}
