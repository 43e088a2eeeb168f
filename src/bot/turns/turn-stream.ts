import type { ChatRequest } from '../../core/chat.ts';
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import type { ScopeSettings } from '../../core/settings.ts';
import type { ToolContext, ToolExecutor } from '../../core/tool.ts';
import type { ResolvedModel } from '../../providers/provider-factory.ts';
import type { StreamOrchestrator, TurnOutcome } from '../../stream/turn/stream-orchestrator.ts';
import type { DeliveryPort } from '../delivery/delivery-port.ts';
import { DiscordSink } from '../delivery/discord-sink.ts';
import { allowedMentionsFor } from '../delivery/message-target.ts';
import type { TypingAllowance } from '../delivery/typing-allowance.ts';
import type { Locale } from '../i18n/locale.ts';
import { translate } from '../i18n/messages.ts';
import { ALLOW_USER_MENTIONS_FLAG, isSwitchOn } from '../settings/reply-switches.ts';
import { stopButtonId } from '../stops/stop-button-id.ts';
import type { TurnPlace } from './turn-place.ts';
import { usageEstimatorFor } from './turn-accounting.ts';

const DISCORD_MESSAGE_LIMIT = 2000;

/** For a model without tool support, and for the stop acknowledgement. */
export const NO_TOOLS: ToolExecutor = {
  specs: () => [],
  execute: () => Promise.resolve({ ok: false, error: 'tools are not available' }),
};

/** What every stream of the runner shares. */
export interface TurnStreamDependencies {
  orchestrator: StreamOrchestrator;
  delivery: DeliveryPort;
  typing: TypingAllowance;
  clock: Clock;
  logger: Logger;
}

export interface TurnStreamOptions {
  turnId: string;
  model: ResolvedModel;
  request: ChatRequest;
  tools: ToolExecutor;
  toolContext: ToolContext;
  settings: ScopeSettings;
  place: TurnPlace;
  replyTo: string;
  locale: Locale;
  signal: AbortSignal;
  /** The live turn a Stop button on the reply stops; none for a reply that cannot be stopped. */
  stopTurnId?: string;
}

/** One model call streamed into a Discord sink replying to `replyTo` in the turn's place. */
export function streamTurn(
  dependencies: TurnStreamDependencies,
  options: TurnStreamOptions,
): Promise<TurnOutcome> {
  const sink = new DiscordSink({
    writer: dependencies.delivery.to(options.place.target),
    typing: dependencies.typing,
    clock: dependencies.clock,
    logger: dependencies.logger,
    allowedMentions: allowedMentionsFor({
      allowUserMentions: isSwitchOn(options.settings, ALLOW_USER_MENTIONS_FLAG),
    }),
    replyTo: options.replyTo,
    limit: DISCORD_MESSAGE_LIMIT,
    gapNotice: `-# ${translate(options.locale, 'delivery.gap')}`,
    ...(options.stopTurnId === undefined
      ? {}
      : {
          stopButton: {
            customId: stopButtonId(options.stopTurnId),
            label: translate(options.locale, 'button.stop'),
          },
        }),
  });
  return dependencies.orchestrator.run({
    turnId: options.turnId,
    model: options.model.chatModel,
    request: options.request,
    tools: options.tools,
    toolContext: options.toolContext,
    sink,
    humanizerDegree: options.settings.humanizerDegree,
    deliveryMode: options.settings.deliveryMode,
    signal: options.signal,
    usageEstimator: usageEstimatorFor(options.model),
    describeTool: (call) => `-# ${translate(options.locale, 'status.tool', { tool: call.name })}`,
  });
}
