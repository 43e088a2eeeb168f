import type { ChatMessage, ChatRequest } from '../../core/chat.ts';
import type { BotError } from '../../core/errors.ts';
import type { ChatModel } from '../../core/provider.ts';
import type { DeliveryMode, HumanizerDegree } from '../../core/settings.ts';
import type { ToolContext, ToolExecutor } from '../../core/tool.ts';
import type { DeliverySink } from '../reply/delivery-sink.ts';
import type { StopRequest } from '../stop/stop-registry.ts';
import type { TurnEvent } from './tool-round.ts';
import type { TurnEndStatus } from './turn-journal.ts';
import type { TurnMetrics } from './turn-metrics.ts';
import type { UsageEstimator } from './usage-estimator.ts';

/** Everything one turn needs that varies per turn. */
export interface TurnRun {
  /** The assistant turn's id (also `toolContext.turnId`). */
  turnId: string;
  model: ChatModel;
  /**
   * System prompt, history and the tools the model may call (`tools.specs(toolContext)`, listed
   * once by the caller, who also counts them in the context's token budget).
   */
  request: ChatRequest;
  tools: ToolExecutor;
  toolContext: ToolContext;
  sink: DeliverySink;
  humanizerDegree: HumanizerDegree;
  deliveryMode: DeliveryMode;
  /** Aborting stops the turn; a StopRequest reason (see StopRegistry) is kept in the outcome. */
  signal?: AbortSignal;
  onEvent?: (event: TurnEvent) => void;
  /** Estimates the tokens of a model call the provider reports no usage for; none: not counted. */
  usageEstimator?: UsageEstimator;
  /** The live status line for a running tool; default "`name`…". The bot localises it. */
  describeTool?: (call: { name: string; input: unknown }) => string | undefined;
}

/** How a turn ended. Never thrown: failures are values. */
export interface TurnOutcome {
  turnId: string;
  status: TurnEndStatus;
  /** The model's text over all its calls (for a stopped turn, what it had written). */
  content: string;
  /** Every message id the reply spans, from the sink. */
  messageIds: string[];
  metrics: TurnMetrics;
  /** Why it failed: a ProviderError (map it to a localised message), DeliveryError, … */
  error: BotError | undefined;
  /** Set when a natural stop ended the turn: what to acknowledge (see buildStopAcknowledgementRequest). */
  stop: { request: StopRequest; interruptedText: string } | undefined;
  /** The assistant and tool messages this turn added to the conversation, in order. */
  messages: ChatMessage[];
  /** The turn record could not be written (the error is logged). */
  journalFailed: boolean;
}
