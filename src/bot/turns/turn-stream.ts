import type { ChatRequest } from '../../core/chat.ts';
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import type { SpeechService } from '../../core/speech.ts';
import type { ToolContext, ToolExecutor } from '../../core/tool.ts';
import type { ResolvedModel } from '../../providers/provider-factory.ts';
import { DISCORD_MESSAGE_LIMIT } from '../../stream/reply/chunker.ts';
import type { StreamOrchestrator, TurnOutcome } from '../../stream/turn/stream-orchestrator.ts';
import { DiscordSink } from '../delivery/discord-sink.ts';
import { SpokenSink } from '../delivery/spoken-sink.ts';
import { VoiceReply, type SpokenReply } from '../delivery/voice-reply.ts';
import { allowedMentionsFor } from '../delivery/message-target.ts';
import type { TypingAllowance } from '../delivery/typing-allowance.ts';
import type { DeliveryPort } from '../delivery/delivery-port.ts';
import { translate } from '../i18n/messages.ts';
import type { TurnFacts } from '../intake/accepted-message.ts';
import { ALLOW_USER_MENTIONS_FLAG, isSwitchOn } from '../settings/reply-switches.ts';
import { personaVoiceOf } from '../settings/voice-settings.ts';
import { stopButtonId } from '../delivery/stop-button-id.ts';
import { usageEstimatorFor } from './turn-accounting.ts';

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
  /** The turn's one id: its journal row, and the Stop button's when it has one. */
  turnId: string;
  model: ResolvedModel;
  request: ChatRequest;
  tools: ToolExecutor;
  toolContext: ToolContext;
  facts: TurnFacts;
  /** The member message the reply answers. */
  replyTo: string;
  signal: AbortSignal;
  /** Whether the reply carries a Stop button (the stop acknowledgement does not). */
  stoppable: boolean;
  logger: Logger;
  /** Also speak the reply, as voice messages beside the text. */
  voice?: SpokenReplyOptions | undefined;
  /** In a voice channel: the characters spoken live, counted once the reply has been spoken. */
  spokenLive?: (characters: number) => Promise<void>;
}

export interface SpokenReplyOptions {
  speech: SpeechService;
  /** The persona's voice. */
  voice: string;
  /** What was spoken, once the reply is flushed (awaited before the turn is recorded). */
  spoken(reply: SpokenReply): Promise<void>;
}

/** One model call streamed into a Discord sink replying to `replyTo` in the turn's place. */
export function streamTurn(
  dependencies: TurnStreamDependencies,
  options: TurnStreamOptions,
): Promise<TurnOutcome> {
  const { facts } = options;
  // A character writes through its webhook (or, headed by its name, through the bot); voice
  // messages are posted by the bot itself (a webhook cannot carry the voice-message flag).
  const writer = dependencies.delivery.to(facts.place.target);
  const allowedMentions = allowedMentionsFor({
    allowUserMentions: isSwitchOn(facts.settings, ALLOW_USER_MENTIONS_FLAG),
  });
  const text = new DiscordSink({
    writer: facts.speaker === undefined ? writer : dependencies.delivery.to(facts.speaker.target),
    typing: dependencies.typing,
    clock: dependencies.clock,
    logger: options.logger,
    allowedMentions,
    replyTo: options.replyTo,
    limit: DISCORD_MESSAGE_LIMIT - headingRoom(facts),
    gapNotice: `-# ${translate(facts.locale, 'delivery.gap')}`,
    ...(options.stoppable
      ? {
          stopButton: {
            customId: stopButtonId(options.turnId),
            label: translate(facts.locale, 'button.stop'),
          },
        }
      : {}),
  });
  const { voice } = options;
  const live = facts.voice;
  const sink =
    live !== undefined
      ? live.speak({
          text: live.textChat ? text : undefined,
          turnId: options.turnId,
          voice: personaVoiceOf(facts.settings),
          signal: options.signal,
          logger: options.logger,
          spoken: options.spokenLive ?? (() => Promise.resolve()),
        })
      : voice === undefined
        ? text
        : new SpokenSink({
            inner: text,
            voice: new VoiceReply({
              writer,
              speech: voice.speech,
              voice: voice.voice,
              replyTo: options.replyTo,
              allowedMentions,
              logger: options.logger,
              signal: options.signal,
              failureNote: translate(facts.locale, 'note.voice_failed'),
            }),
            spoken: (reply) => voice.spoken(reply),
          });
  return dependencies.orchestrator.run({
    turnId: options.turnId,
    model: options.model.chatModel,
    request: options.request,
    tools: options.tools,
    toolContext: options.toolContext,
    sink,
    humanizerDegree: facts.settings.humanizerDegree,
    deliveryMode: facts.settings.deliveryMode,
    signal: options.signal,
    usageEstimator: usageEstimatorFor(options.model),
    describeTool: (call) => `-# ${translate(facts.locale, 'status.tool', { tool: call.name })}`,
  });
}

/** Room for a character's name heading its messages when no webhook can carry the name. */
function headingRoom(facts: TurnFacts): number {
  const name = facts.speaker?.character.name;
  return name === undefined ? 0 : name.length + '****\n'.length;
}
