import type { Logger } from '../../core/logger.ts';
import type { DeliverySink } from '../../stream/reply/delivery-sink.ts';

/**
 * A turn asked for by voice in a voice channel: its reply is spoken there as it streams. A port
 * the voice stage implements (bot/voice), carried in the turn's facts so the turn stage builds
 * the reply's sink without knowing anything of voice connections.
 */
export interface LiveVoice {
  /** Whether the exchange's text is posted in the voice channel's text chat as well. */
  readonly textChat: boolean;
  /**
   * The reply's sink: every sentence is spoken as soon as it is complete; `text`, when given,
   * receives the text as usual. Its flush waits until the reply has been spoken (or stopped).
   */
  speak(options: LiveVoiceReply): DeliverySink;
}

export interface LiveVoiceReply {
  /** The text chat's sink; undefined when only speech answers. */
  text: DeliverySink | undefined;
  turnId: string;
  /** The persona's voice; undefined: the speech service's default voice. */
  voice: string | undefined;
  /** The turn's signal: a stop or a barge-in silences the reply at once. */
  signal: AbortSignal;
  logger: Logger;
  /** Told the characters spoken once the reply has been (for usage and budgets); awaited. */
  spoken: (characters: number) => Promise<void>;
}
