import type { ChatMessage, ToolResultPart } from '../../core/chat.ts';
import type { Clock, RandomSource } from '../../core/clock.ts';
import { BotError } from '../../core/errors.ts';
import { silentLogger, type Logger } from '../../core/logger.ts';
import { humanizerPlan } from '../../humanizer/humanizer-plan.ts';
import { SemanticBlockBuffer } from '../blocks/block-buffer.ts';
import { flushWithin } from '../reply/delivery-sink.ts';
import { emptyReplyError, toolLimitRefusal } from './loop-endings.ts';
import { runModelStep, type ModelStepResult } from './model-step.ts';
import { ReplyDelivery } from '../reply/reply-delivery.ts';
import { isStopRequest } from '../stop/stop-registry.ts';
import { blockPolicyFor, resolveStreamOptions, type StreamOptions } from './stream-options.ts';
import { runToolRound } from './tool-round.ts';
import type { TurnEndStatus, TurnJournal } from './turn-journal.ts';
import { TurnMetricsRecorder, type TurnMetrics } from './turn-metrics.ts';
import type { TurnOutcome, TurnRun } from './turn-run.ts';

export type { TurnOutcome, TurnRun } from './turn-run.ts';

export interface StreamOrchestratorDependencies {
  journal: TurnJournal;
  clock: Clock;
  random: RandomSource;
  logger?: Logger;
  options?: Partial<StreamOptions> | undefined;
}

/**
 * One turn: model stream → reasoning set aside → text through block buffer → humanizer →
 * chunker → sink; tool calls → executor → results appended → model called again, in a bounded
 * loop. The turn's state lives in memory; the journal is written once at the start and once at
 * the end (complete, stopped or failed).
 */
export class StreamOrchestrator {
  private readonly journal: TurnJournal;
  private readonly clock: Clock;
  private readonly random: RandomSource;
  private readonly logger: Logger;
  readonly options: StreamOptions;

  constructor(dependencies: StreamOrchestratorDependencies) {
    this.journal = dependencies.journal;
    this.clock = dependencies.clock;
    this.random = dependencies.random;
    this.logger = dependencies.logger ?? silentLogger;
    this.options = resolveStreamOptions(dependencies.options);
  }

  async run(turn: TurnRun): Promise<TurnOutcome> {
    const metrics = new TurnMetricsRecorder(this.clock);
    const logger = this.logger.child({
      turnId: turn.turnId,
      channelId: turn.toolContext.channelId,
    });
    const empty = { content: '', messageIds: [], stop: undefined, messages: [] };
    try {
      await this.journal.start({
        turnId: turn.turnId,
        scopeId: turn.toolContext.scopeId,
        channelId: turn.toolContext.channelId,
        triggerMessageId: turn.toolContext.messageId,
      });
    } catch (error) {
      logger.error({ err: error }, 'could not record the start of the turn');
      const failure = new BotError('journal_start', 'could not record the start of the turn', {
        cause: error,
      });
      return {
        turnId: turn.turnId,
        status: 'failed',
        metrics: metrics.snapshot(),
        error: failure,
        journalFailed: true,
        ...empty,
      };
    }

    const signal = turn.signal ?? new AbortController().signal;
    const plan = humanizerPlan(turn.humanizerDegree);
    const delivery = new ReplyDelivery({
      sink: turn.sink,
      mode: turn.deliveryMode,
      plan,
      messageLimit: this.options.messageLimit,
      pacing: this.options.typingPacing,
      clock: this.clock,
      random: this.random,
      previewIntervalMs: this.options.editPreviewIntervalMs,
      onFirstDelivery: () => metrics.delivered(),
    });
    // A stop sends nothing more at once, even before the stream notices.
    const onStop = (): void => delivery.stop();
    signal.addEventListener('abort', onStop, { once: true });
    turn.sink.setTyping(true);

    let loop: LoopResult;
    try {
      loop = await this.loop(turn, {
        signal,
        delivery,
        metrics,
        plan: blockPolicyFor(plan, this.options),
      });
      if (loop.status === 'stopped') delivery.stop();
      else await delivery.complete(); // paced messages may still be waiting: a stop cuts them
    } catch (unexpected) {
      // A bug below (a tool registry throwing from specs(), say) still ends the turn properly.
      logger.error({ err: unexpected }, 'the turn failed unexpectedly');
      delivery.stop();
      loop = {
        status: 'failed',
        error: new BotError('turn_internal', 'the turn failed unexpectedly', { cause: unexpected }),
        texts: [],
        messages: [],
      };
    } finally {
      signal.removeEventListener('abort', onStop);
    }
    metrics.deliveries = delivery.deliveredCount;
    turn.sink.setStatus(undefined);
    turn.sink.setTyping(false);

    // A stop while paced messages were still "being typed" stops the reply too.
    let status = loop.status === 'complete' && signal.aborted ? 'stopped' : loop.status;
    let error: BotError | undefined = loop.error;
    const content = loop.texts
      .map((text) => text.trim())
      .filter((text) => text !== '')
      .join('\n\n');
    if (status === 'complete' && content === '' && delivery.deliveredCount === 0) {
      status = 'failed';
      error = emptyReplyError(metrics.finishReason, turn.model.provider);
    }
    const delivered = await flushWithin(turn.sink, {
      clock: this.clock,
      timeoutMs: this.options.flushTimeoutMs,
      logger,
    }).then(
      (result) => result,
      (flushError: unknown) => ({
        messageIds: [] as string[],
        failure:
          flushError instanceof BotError
            ? flushError
            : new BotError('delivery', 'delivery did not complete', { cause: flushError }),
      }),
    );
    const { messageIds } = delivered;
    if (delivered.failure !== undefined) {
      logger.error({ err: delivered.failure }, 'delivery did not complete');
      // A reply missing on Discord is a failed turn, whatever the model did.
      if (status === 'complete') {
        status = 'failed';
        error = delivered.failure;
      }
    }
    const snapshot = metrics.snapshot();
    const stopReason: unknown = signal.reason;
    const outcome: TurnOutcome = {
      turnId: turn.turnId,
      status,
      content,
      messageIds,
      metrics: snapshot,
      error,
      stop:
        status === 'stopped' && isStopRequest(stopReason)
          ? { request: stopReason, interruptedText: content }
          : undefined,
      messages: loop.messages,
      journalFailed: false,
    };
    try {
      await this.journal.finish(turn.turnId, {
        content,
        discordMessageIds: messageIds,
        status,
        metrics: snapshot,
      });
    } catch (journalError) {
      logger.error({ err: journalError }, 'could not record the end of the turn');
      outcome.journalFailed = true;
    }
    // The bot logs the one info line per turn (with provider and model); this is the detail.
    logger.debug({ status, errorCode: error?.code, ...summary(snapshot) }, 'stream finished');
    return outcome;
  }

  private async loop(turn: TurnRun, state: LoopState): Promise<LoopResult> {
    const { signal, delivery, metrics } = state;
    const messages: ChatMessage[] = [];
    const texts: string[] = [];
    let consecutiveToolErrors = 0;
    let toolsRefused = false;
    for (let iteration = 1; ; iteration += 1) {
      if (signal.aborted) return { status: 'stopped', error: undefined, texts, messages };
      if (iteration > 1) delivery.nextStep();
      metrics.iterations = iteration;
      const buffer = new SemanticBlockBuffer(state.plan);
      const step = await runModelStep({
        model: turn.model,
        request: {
          ...turn.request,
          messages: [...turn.request.messages, ...messages],
          tools: turn.tools.specs(turn.toolContext),
        },
        signal,
        clock: this.clock,
        inactivityTimeoutMs: this.options.inactivityTimeoutMs,
        buffer,
        delivery,
        metrics,
        ...(turn.usageEstimator === undefined ? {} : { estimator: turn.usageEstimator }),
      });
      texts.push(step.text);
      if (step.finishReason !== undefined) metrics.finishReason = step.finishReason;
      if (step.message !== undefined) messages.push(step.message);
      if (step.outcome === 'stopped')
        return { status: 'stopped', error: undefined, texts, messages };
      // The tail is delivered also when the provider failed mid-reply: it was written.
      const tail = buffer.finish();
      const last = step.outcome === 'failed' || step.toolCalls.length === 0 || toolsRefused;
      if (last) delivery.acceptFinal(tail);
      else for (const block of tail) delivery.accept(block);
      if (step.outcome === 'failed')
        return { status: 'failed', error: step.error, texts, messages };
      if (step.toolCalls.length === 0)
        return { status: 'complete', error: undefined, texts, messages };
      if (toolsRefused) {
        metrics.toolLimitReached = true;
        return { status: 'complete', error: undefined, texts, messages };
      }
      const canRun =
        iteration < this.options.maxIterations &&
        consecutiveToolErrors < this.options.maxConsecutiveToolErrors;
      const results = canRun
        ? await this.runTools(turn, step, { ...state, iteration })
        : step.toolCalls.map((call) => toolLimitRefusal(call));
      if (!canRun) {
        toolsRefused = true;
        metrics.toolLimitReached = true;
      }
      if (signal.aborted) return { status: 'stopped', error: undefined, texts, messages };
      for (const result of results)
        consecutiveToolErrors = result.isError ? consecutiveToolErrors + 1 : 0;
      messages.push({ role: 'tool', content: results });
    }
  }

  private async runTools(
    turn: TurnRun,
    step: ModelStepResult,
    state: LoopState & { iteration: number },
  ): Promise<ToolResultPart[]> {
    const describe = turn.describeTool ?? ((call: { name: string }) => `\`${call.name}\`…`);
    const round = await runToolRound({
      executor: turn.tools,
      context: turn.toolContext,
      calls: step.toolCalls,
      signal: state.signal,
      clock: this.clock,
      timeoutMs: this.options.toolTimeoutMs,
      iteration: state.iteration,
      onEvent: (event) => {
        if (event.type === 'tool-start' && !state.signal.aborted) {
          const call = step.toolCalls.find((candidate) => candidate.id === event.callId);
          turn.sink.setStatus(describe({ name: event.name, input: call?.input }));
        }
        turn.onEvent?.(event);
      },
    });
    if (!state.signal.aborted) turn.sink.setStatus(undefined);
    state.metrics.tools.push(...round.metrics);
    return round.results;
  }
}

interface LoopState {
  signal: AbortSignal;
  delivery: ReplyDelivery;
  metrics: TurnMetricsRecorder;
  plan: ReturnType<typeof blockPolicyFor>;
}

interface LoopResult {
  status: TurnEndStatus;
  error: BotError | undefined;
  texts: string[];
  messages: ChatMessage[];
}

function summary(metrics: TurnMetrics): Record<string, unknown> {
  const { tools, ...rest } = metrics;
  return { ...rest, toolCalls: tools.length };
}
