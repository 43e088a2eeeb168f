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

export interface OutgoingMessage {
  content: string;
  allowedMentions: AllowedMentions;
  /** Reply to this message without pinging its author. */
  replyTo?: string;
  /** Buttons; only the bot's own (e.g. Retry). */
  components?: ReadonlyArray<{ customId: string; label: string }>;
}

export interface MessageEdit {
  content: string;
  allowedMentions: AllowedMentions;
}

export type TargetFailure = 'gone' | 'too_old_to_edit' | 'forbidden' | 'rate_limited' | 'other';

/** A write the platform refused, classified once at the edge. */
export class TargetWriteError extends Error {
  readonly failure: TargetFailure;

  constructor(failure: TargetFailure, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TargetWriteError';
    this.failure = failure;
  }
}

export interface MessageTarget {
  readonly channelId: string;
  send(message: OutgoingMessage): Promise<string>;
  edit(messageId: string, edit: MessageEdit): Promise<void>;
  delete(messageId: string): Promise<void>;
  sendTyping(): Promise<void>;
}
