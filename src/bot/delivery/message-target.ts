import { DeliveryError, type DeliveryRequest } from '../../core/errors.ts';

/**
 * The narrow port over one channel that the ChannelWriter (delivery-port.ts) writes through:
 * single requests, no pacing, no retry. The real implementation wraps a discord.js channel;
 * tests use a recording fake. Every payload carries explicit allowed mentions.
 */
export interface AllowedMentions {
  parse: Array<'users' | 'roles' | 'everyone'>;
  users?: string[];
  repliedUser: boolean;
}

/** Never @everyone/@here or roles from model text; user pings only when the scope allows them. */
export function allowedMentionsFor(options: { allowUserMentions: boolean }): AllowedMentions {
  return { parse: options.allowUserMentions ? ['users'] : [], repliedUser: false };
}

/** One of the bot's own buttons (Retry, Stop). */
export interface ButtonSpec {
  customId: string;
  label: string;
}

/** A recording posted as a Discord voice message (flag IS_VOICE_MESSAGE). */
export interface VoiceAttachment {
  /** An OGG/Opus file. */
  ogg: Uint8Array;
  durationSeconds: number;
  /** Discord's waveform bytes, base64 encoded. */
  waveform: string;
}

export interface OutgoingMessage {
  /** Empty for a voice message: Discord takes no text with one. */
  content: string;
  allowedMentions: AllowedMentions;
  /** Reply to this message without pinging its author. */
  replyTo?: string;
  /**
   * Sent with `enforce_nonce`: Discord answers a repeat of this create with the message it
   * already made, so a retried POST (after a 5xx or a lost connection) never posts twice.
   */
  nonce?: string;
  /** Buttons; only the bot's own (e.g. Retry). */
  components?: readonly ButtonSpec[];
  /** Guild stickers sent with (or instead of) the content. */
  stickerIds?: readonly string[];
  /** Makes the message a voice message: this recording alone, no content, no buttons. */
  voice?: VoiceAttachment;
}

export interface MessageEdit {
  content: string;
  allowedMentions: AllowedMentions;
  /** The message's buttons after the edit: `[]` takes them all away; absent leaves them. */
  components?: readonly ButtonSpec[];
}

/**
 * `gone`: the message or channel no longer exists; `too_old_to_edit`: 30046; `forbidden`: 403
 * (missing access or permission); `rate_limited`: a 429 that reached us; `transient`: a 5xx or
 * a network failure (worth retrying later); `other`: anything else (a bad request: never retried).
 */
export type TargetFailure =
  'gone' | 'too_old_to_edit' | 'forbidden' | 'rate_limited' | 'transient' | 'other';

/** A write the platform refused, classified once at the edge (discord-message-target.ts). */
export class TargetWriteError extends DeliveryError {
  readonly failure: TargetFailure;
  /** How long the platform asked us to wait (a 429's retry-after), when it said. */
  readonly retryAfterMs: number | undefined;

  constructor(
    failure: TargetFailure,
    message: string,
    options: DeliveryRequest & { cause?: unknown; retryAfterMs?: number | undefined } = {},
  ) {
    const { retryAfterMs, ...rest } = options;
    // A 5xx, a network failure or a 429 that reached us: the same write may succeed later.
    super(failure, message, {
      ...rest,
      retryable: failure === 'transient' || failure === 'rate_limited',
    });
    this.failure = failure;
    this.retryAfterMs = retryAfterMs;
  }
}

export interface MessageTarget {
  readonly channelId: string;
  /**
   * The write budget its writes draw from, when it is not the channel's own (a channel's
   * webhook writes share the webhook's bucket, not the channel's).
   */
  readonly budgetKey?: string;
  /** Set when the messages speak as one of the bot's characters. */
  readonly characterName?: string;
  /** Creates the message and answers its id; `signal` aborts the request itself. */
  send(message: OutgoingMessage, signal?: AbortSignal): Promise<string>;
  edit(messageId: string, edit: MessageEdit): Promise<void>;
  delete(messageId: string): Promise<void>;
  sendTyping(): Promise<void>;
}
