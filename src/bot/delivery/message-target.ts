/**
 * The narrow port the Discord sink writes through. The real implementation wraps a discord.js
 * channel; tests use a recording fake. Every payload carries explicit allowed mentions.
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

export interface OutgoingMessage {
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

/** A write the platform refused, classified once at the edge. */
export class TargetWriteError extends Error {
  readonly failure: TargetFailure;
  /** How long the platform asked us to wait (a 429's retry-after), when it said. */
  readonly retryAfterMs: number | undefined;

  constructor(
    failure: TargetFailure,
    message: string,
    options?: { cause?: unknown; retryAfterMs?: number },
  ) {
    super(message, options);
    this.name = 'TargetWriteError';
    this.failure = failure;
    this.retryAfterMs = options?.retryAfterMs;
  }
}

export interface MessageTarget {
  readonly channelId: string;
  send(message: OutgoingMessage): Promise<string>;
  edit(messageId: string, edit: MessageEdit): Promise<void>;
  delete(messageId: string): Promise<void>;
  sendTyping(): Promise<void>;
}
