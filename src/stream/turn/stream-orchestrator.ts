import type { ChatMessage, ToolCallPart, ToolResultPart } from '../../core/chat.ts';
import type { Clock, RandomSource } from '../../core/clock.ts';
import { BotError, ProviderError } from '../../core/errors.ts';
import { silentLogger, type Logger } from '../../core/logger.ts';
import type { ProviderId } from '../../core/provider.ts';
import type { FinishReason } from '../../core/stream-part.ts';
import { humanizerPlan } from '../../humanizer/humanizer-plan.ts';
import { SemanticBlockBuffer } from '../blocks/block-buffer.ts';
import { flushWithin } from '../reply/delivery-sink.ts';
import { GatedSink } from '../reply/gated-sink.ts';
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

  /**
   * Record the start beside the model call → stream the reply (held until the start is
   * recorded) → settle how it ended → flush → record the end.
   */
  async run(turn: TurnRun): Promise<TurnOutcome> {
    const metrics = new TurnMetricsRecorder(this.clock);
    const logger = this.logger.child({
      turnId: turn.turnId,
      channelId: turn.toolContext.channelId,
    });
    // The start's write and the model's first bytes are awaited together, not one after the
    // other; nothing of the reply is posted before the start is recorded (GatedSink).
    const unrecordable = new AbortController();
    const started = this.recordStart(turn, { metrics, logger }).then((failed) => {
      if (failed !== undefined) unrecordable.abort(failed.error);
      return failed;
    });
    const recorded = started.then((failed) => failed === undefined);
    const sink = new GatedSink(turn.sink, recorded);
    const signal = AbortSignal.any([
      turn.signal ?? new AbortController().signal,
      unrecordable.signal,
    ]);
    const plan = humanizerPlan(turn.humanizerDegree);
    const delivery = new ReplyDelivery({
      sink,
      mode: turn.deliveryMode,
      plan,
      messageLimit: this.options.messageLimit,
      pacing: this.options.typingPacing,
      clock: this.clock,
      random: this.random,
      previewIntervalMs: this.options.editPreviewIntervalMs,
      onFirstDelivery: () => metrics.delivered(),
    });
    const state: TurnState = {
      turn: { ...turn, sink },
      signal,
      recorded,
      delivery,
      metrics,
      plan: blockPolicyFor(plan, this.options),
      logger,
    };
    const loop = await this.streamReply(state);
    // A turn whose start could not be recorded posted nothing: its model call was cut short.
    const unrecorded = await started;
    if (unrecorded !== undefined) return unrecorded;
    const ending = settleEnding(loop, state);
    const delivered = await this.flushReply(state);
    return this.recordEnd(state, {
      ending: withDeliveryResult(ending, delivered),
      messageIds: delivered.messageIds,
      messages: loop.messages,
    });
  }

  /** A turn whose start cannot be recorded ends failed (undefined when it was recorded). */
  private async recordStart(
    turn: TurnRun,
    { metrics, logger }: { metrics: TurnMetricsRecorder; logger: Logger },
  ): Promise<TurnOutcome | undefined> {
    try {
      await this.journal.start({
        turnId: turn.turnId,
        scopeId: turn.toolContext.scopeId,
        channelId: turn.toolContext.channelId,
        triggerMessageId: turn.toolContext.messageId,
        speaker: turn.toolContext.character,
      });
      return undefined;
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
        content: '',
        messageIds: [],
        stop: undefined,
        messages: [],
      };
    }
  }

  /** Runs the model loop with typing shown; whatever happens, the sink is quiet afterwards. */
  private async streamReply(state: TurnState): Promise<LoopResult> {
    const { turn, signal, delivery } = state;
    // A stop sends nothing more at once, even before the stream notices.
    const onStop = (): void => delivery.stop();
    signal.addEventListener('abort', onStop, { once: true });
    turn.sink.setTyping(true);
    let loop: LoopResult;
    try {
      loop = await this.loop(state);
      if (loop.status === 'stopped') delivery.stop();
      else await delivery.complete(); // paced messages may still be waiting: a stop cuts them
    } catch (unexpected) {
      // A bug below (a sink or a tool executor throwing, say) still ends the turn properly.
      state.logger.error({ err: unexpected }, 'the turn failed unexpectedly');
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
    state.metrics.deliveries = delivery.deliveredCount;
    turn.sink.setStatus(undefined);
    turn.sink.setTyping(false);
    return loop;
  }

  /** The sink's flush, bounded; a flush that throws is a delivery failure like any other. */
  private async flushReply({ turn, logger }: TurnState): Promise<Delivered> {
    const delivered = await flushWithin(turn.sink, {
      clock: this.clock,
      timeoutMs: this.options.flushTimeoutMs,
      logger,
    }).then(
      (result): Delivered => result,
      (flushError: unknown): Delivered => ({
        messageIds: [],
        failure:
          flushError instanceof BotError
            ? flushError
            : new BotError('delivery', 'delivery did not complete', { cause: flushError }),
      }),
    );
    if (delivered.failure !== undefined) {
      logger.error({ err: delivered.failure }, 'delivery did not complete');
    }
    return delivered;
  }

  /** Builds the outcome and writes the turn's one end record; a failed write is only flagged. */
  private async recordEnd(state: TurnState, end: TurnEnd): Promise<TurnOutcome> {
    const { turn, logger } = state;
    const { ending, messageIds } = end;
    const { status, content, error } = ending;
    const snapshot = state.metrics.snapshot();
    const stopReason: unknown = state.signal.reason;
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
      messages: end.messages,
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

  /**
   * Model call → deliver what it wrote → run its tool calls → call again, until the model
   * answers without tools, fails or is stopped. Past the turn's limits the tool calls are
   * refused (the model is told so) and one last call may answer with what it has.
   */
  private async loop(state: TurnState): Promise<LoopResult> {
    const { signal, delivery, metrics } = state;
    const messages: ChatMessage[] = [];
    const texts: string[] = [];
    const end = (status: TurnEndStatus, error?: BotError): LoopResult => ({
      status,
      error,
      texts,
      messages,
    });
    const tools = new ToolAllowance(this.options);
    for (let iteration = 1; ; iteration += 1) {
      if (signal.aborted) return end('stopped');
      if (iteration > 1) delivery.nextStep();
      metrics.iterations = iteration;
      const buffer = new SemanticBlockBuffer(state.plan);
      const step = await this.callModel({ ...state, buffer, messages });
      texts.push(step.text);
      if (step.finishReason !== undefined) metrics.finishReason = step.finishReason;
      if (step.message !== undefined) messages.push(step.message);
      if (step.outcome === 'stopped') return end('stopped');
      // The tail is delivered also when the provider failed mid-reply: it was written.
      const tail = buffer.finish();
      const last = step.outcome === 'failed' || step.toolCalls.length === 0 || tools.refused;
      if (last) delivery.acceptFinal(tail);
      else for (const block of tail) delivery.accept(block);
      if (step.outcome === 'failed') return end('failed', step.error);
      if (step.toolCalls.length === 0) return end('complete');
      if (tools.refused) {
        metrics.toolLimitReached = true;
        return end('complete');
      }
      // Tools act in the world (a message, a reminder, a memory): only for a recorded turn.
      if (!(await state.recorded) || signal.aborted) return end('stopped');
      const results = await this.answerToolCalls(step, { ...state, iteration, tools });
      if (signal.aborted) return end('stopped');
      tools.count(results);
      messages.push({ role: 'tool', content: results });
    }
  }

  /** One model call on the conversation so far, its text streamed through `buffer`. */
  private callModel(
    call: TurnState & { buffer: SemanticBlockBuffer; messages: readonly ChatMessage[] },
  ): Promise<ModelStepResult> {
    const { turn } = call;
    return runModelStep({
      model: turn.model,
      request: { ...turn.request, messages: [...turn.request.messages, ...call.messages] },
      signal: call.signal,
      clock: this.clock,
      inactivityTimeoutMs: this.options.inactivityTimeoutMs,
      buffer: call.buffer,
      delivery: call.delivery,
      metrics: call.metrics,
      ...(turn.usageEstimator === undefined ? {} : { estimator: turn.usageEstimator }),
    });
  }

  /** Runs the step's tool calls, or, past the turn's limits, refuses every one of them. */
  private async answerToolCalls(
    step: ModelStepResult,
    state: TurnState & { iteration: number; tools: ToolAllowance },
  ): Promise<ToolResultPart[]> {
    if (state.tools.allows(state.iteration)) return this.runTools(step, state);
    state.tools.refused = true;
    state.metrics.toolLimitReached = true;
    return step.toolCalls.map((call) => toolLimitRefusal(call));
  }

  private async runTools(
    step: ModelStepResult,
    state: TurnState & { iteration: number },
  ): Promise<ToolResultPart[]> {
    const { turn } = state;
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

/** One running turn: what it was asked, and what carries it to the platform. */
interface TurnState {
  turn: TurnRun;
  signal: AbortSignal;
  /** Settles true once the turn's start is recorded, false when it could not be. */
  recorded: Promise<boolean>;
  delivery: ReplyDelivery;
  metrics: TurnMetricsRecorder;
  plan: ReturnType<typeof blockPolicyFor>;
  /** The turn's child logger (turn and channel ids). */
  logger: Logger;
}

interface LoopResult {
  status: TurnEndStatus;
  error: BotError | undefined;
  texts: string[];
  messages: ChatMessage[];
}

/** How the turn ended, as recorded and reported. */
interface TurnEnding {
  status: TurnEndStatus;
  /** The model's text over all its calls. */
  content: string;
  error: BotError | undefined;
}

/** What reached the platform: the sink's result, or the failure its flush threw. */
interface Delivered {
  messageIds: string[];
  failure: BotError | undefined;
}

interface TurnEnd {
  ending: TurnEnding;
  messageIds: string[];
  messages: ChatMessage[];
}

/**
 * Whether the model may run tools again: not past `maxIterations` model calls, and not after
 * `maxConsecutiveToolErrors` failed calls in a row. Once refused, tools stay refused.
 */
class ToolAllowance {
  refused = false;
  private errorsInARow = 0;
  private readonly options: StreamOptions;

  constructor(options: StreamOptions) {
    this.options = options;
  }

  allows(iteration: number): boolean {
    return (
      iteration < this.options.maxIterations &&
      this.errorsInARow < this.options.maxConsecutiveToolErrors
    );
  }

  count(results: readonly ToolResultPart[]): void {
    for (const result of results) this.errorsInARow = result.isError ? this.errorsInARow + 1 : 0;
  }
}

/** The loop's status, corrected for what was delivered: a stop during pacing, an empty reply. */
function settleEnding(loop: LoopResult, state: TurnState): TurnEnding {
  // A stop while paced messages were still "being typed" stops the reply too.
  let status = loop.status === 'complete' && state.signal.aborted ? 'stopped' : loop.status;
  let error: BotError | undefined = loop.error;
  const content = loop.texts
    .map((text) => text.trim())
    .filter((text) => text !== '')
    .join('\n\n');
  if (status === 'complete' && content === '' && state.delivery.deliveredCount === 0) {
    status = 'failed';
    error = emptyReplyError(state.metrics.finishReason, state.turn.model.provider);
  }
  return { status, content, error };
}

function withDeliveryResult(ending: TurnEnding, delivered: Delivered): TurnEnding {
  // A reply missing on Discord is a failed turn, whatever the model did.
  if (delivered.failure === undefined || ending.status !== 'complete') return ending;
  return { ...ending, status: 'failed', error: delivered.failure };
}

/** What the model is told for each tool call past the turn's limits, instead of a result. */
const TOOL_LIMIT_MESSAGE =
  'Tool limit reached for this reply: no more tools can run. Answer now with what you have.';

/** Nothing to show is a failure the member should hear about (with a Retry), not silence. */
function emptyReplyError(finishReason: FinishReason | null, provider: ProviderId): ProviderError {
  const filtered = finishReason === 'content_filter';
  return new ProviderError({
    kind: filtered ? 'content_filter' : 'model',
    message: 'the model returned an empty reply',
    retryable: !filtered,
    provider,
  });
}

/** The result given back for a tool call the turn's limits do not let run. */
function toolLimitRefusal(call: ToolCallPart): ToolResultPart {
  return {
    type: 'tool-result',
    callId: call.id,
    name: call.name,
    output: TOOL_LIMIT_MESSAGE,
    isError: true,
  };
}

function summary(metrics: TurnMetrics): Record<string, unknown> {
  const { tools, ...rest } = metrics;
  return { ...rest, toolCalls: tools.length };
}
