import {
  ActionRowBuilder,
  ButtonBuilder,
  ButtonStyle,
  DiscordAPIError,
  HTTPError,
  RateLimitError,
  RESTJSONErrorCodes,
  type MessageCreateOptions,
  type SendableChannels,
} from 'discord.js';
import {
  type AllowedMentions,
  type ButtonSpec,
  type MessageEdit,
  type MessageTarget,
  type OutgoingMessage,
  TargetWriteError,
} from './message-target.ts';

/** The MessageTarget over a discord.js channel. Errors are classified here, once. */
export class DiscordMessageTarget implements MessageTarget {
  private readonly channel: SendableChannels;

  constructor(channel: SendableChannels) {
    this.channel = channel;
  }

  get channelId(): string {
    return this.channel.id;
  }

  async send(message: OutgoingMessage): Promise<string> {
    const options: MessageCreateOptions = {
      content: message.content,
      allowedMentions: toDiscordMentions(message.allowedMentions),
    };
    if (message.nonce !== undefined) {
      options.nonce = message.nonce;
      options.enforceNonce = true;
    }
    if (message.replyTo !== undefined) {
      options.reply = { messageReference: message.replyTo, failIfNotExists: false };
    }
    if (message.components !== undefined && message.components.length > 0) {
      options.components = buttonRows(message.components);
    }
    try {
      const sent = await this.channel.send(options);
      return sent.id;
    } catch (error) {
      throw classify(error);
    }
  }

  async edit(messageId: string, edit: MessageEdit): Promise<void> {
    try {
      // Through the manager (not Message#edit) so allowed_mentions is always in the PATCH body.
      await this.channel.messages.edit(messageId, {
        content: edit.content,
        allowedMentions: toDiscordMentions(edit.allowedMentions),
        ...(edit.components === undefined ? {} : { components: buttonRows(edit.components) }),
      });
    } catch (error) {
      throw classify(error);
    }
  }

  async delete(messageId: string): Promise<void> {
    try {
      await this.channel.messages.delete(messageId);
    } catch (error) {
      throw classify(error);
    }
  }

  async sendTyping(): Promise<void> {
    await this.channel.sendTyping();
  }
}

/** One row of the bot's buttons; none at all for an empty list. */
function buttonRows(buttons: readonly ButtonSpec[]): Array<ActionRowBuilder<ButtonBuilder>> {
  if (buttons.length === 0) return [];
  return [
    new ActionRowBuilder<ButtonBuilder>().addComponents(
      buttons.map((button) =>
        new ButtonBuilder()
          .setCustomId(button.customId)
          .setLabel(button.label)
          .setStyle(ButtonStyle.Secondary),
      ),
    ),
  ];
}

export function toDiscordMentions(mentions: AllowedMentions): {
  parse: Array<'users' | 'roles' | 'everyone'>;
  users?: string[];
  repliedUser: boolean;
} {
  return {
    parse: [...mentions.parse],
    ...(mentions.users === undefined ? {} : { users: [...mentions.users] }),
    repliedUser: mentions.repliedUser,
  };
}

/** Network failures discord.js gives up on (it retried timeouts and resets 3 times already). */
const NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
]);

export function classify(error: unknown): TargetWriteError {
  if (error instanceof DiscordAPIError) {
    switch (error.code) {
      case RESTJSONErrorCodes.UnknownMessage:
      case RESTJSONErrorCodes.UnknownChannel:
        return new TargetWriteError('gone', error.message, { cause: error });
      case RESTJSONErrorCodes.MaximumNumberOfEditsToMessagesOlderThanOneHourReached:
        return new TargetWriteError('too_old_to_edit', error.message, { cause: error });
      case RESTJSONErrorCodes.MissingPermissions:
      case RESTJSONErrorCodes.MissingAccess:
        return new TargetWriteError('forbidden', error.message, { cause: error });
      case RESTJSONErrorCodes.ChannelWriteRateLimit:
        return new TargetWriteError('rate_limited', error.message, { cause: error });
      default:
        break;
    }
    if (error.status === 403)
      return new TargetWriteError('forbidden', error.message, { cause: error });
    if (error.status === 429)
      return new TargetWriteError('rate_limited', error.message, { cause: error });
    if (error.status >= 500)
      return new TargetWriteError('transient', error.message, { cause: error });
  }
  if (error instanceof RateLimitError) {
    return new TargetWriteError('rate_limited', error.message, {
      cause: error,
      retryAfterMs: error.retryAfter,
    });
  }
  // discord.js throws HTTPError for a 5xx after its own retries.
  if (error instanceof HTTPError && error.status >= 500) {
    return new TargetWriteError('transient', error.message, { cause: error });
  }
  if (error instanceof Error && isNetworkFailure(error)) {
    return new TargetWriteError('transient', error.message, { cause: error });
  }
  return new TargetWriteError('other', error instanceof Error ? error.message : 'write failed', {
    cause: error,
  });
}

function isNetworkFailure(error: Error): boolean {
  if (error.name === 'AbortError' || error.name === 'TimeoutError') return true;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
  // undici's "fetch failed" carries the socket error as its cause.
  return error.cause instanceof Error && error.cause !== error && isNetworkFailure(error.cause);
}
