import {
  ActionRowBuilder,
  AttachmentBuilder,
  ButtonBuilder,
  ButtonStyle,
  DiscordAPIError,
  HTTPError,
  MessageFlags,
  MessagePayload,
  RateLimitError,
  RESTJSONErrorCodes,
  Routes,
  type MessageCreateOptions,
  type SendableChannels,
} from 'discord.js';
import type { DeliveryRequest } from '../../core/errors.ts';
import {
  type AllowedMentions,
  type ButtonSpec,
  type MessageEdit,
  type MessageTarget,
  type OutgoingMessage,
  TargetWriteError,
  type VoiceAttachment,
} from './message-target.ts';

/** The name Discord's own clients give a voice message's file. */
const VOICE_MESSAGE_FILENAME = 'voice-message.ogg';

/** The routes of the channel writes, as a DeliveryError names them. */
export const WRITE_ROUTES = {
  create: 'POST /channels/:id/messages',
  edit: 'PATCH /channels/:id/messages/:id',
  delete: 'DELETE /channels/:id/messages/:id',
} as const;

/** The MessageTarget over a discord.js channel. Errors are classified here, once. */
export class DiscordMessageTarget implements MessageTarget {
  private readonly channel: SendableChannels;

  constructor(channel: SendableChannels) {
    this.channel = channel;
  }

  get channelId(): string {
    return this.channel.id;
  }

  async send(message: OutgoingMessage, signal?: AbortSignal): Promise<string> {
    const allowedMentions = toDiscordMentions(message.allowedMentions);
    const options: MessageCreateOptions =
      message.voice === undefined
        ? { content: message.content, allowedMentions }
        : { ...voiceMessageOptions(message.voice), allowedMentions };
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
    if (message.stickerIds !== undefined) options.stickers = [...message.stickerIds];
    try {
      // The body channel.send would build, posted through REST: only that call takes a signal.
      const { body, files } = await MessagePayload.create(this.channel, options)
        .resolveBody()
        .resolveFiles();
      const sent = (await this.channel.client.rest.post(Routes.channelMessages(this.channel.id), {
        body,
        files: files ?? [],
        ...(signal === undefined ? {} : { signal }),
      })) as { id: string };
      return sent.id;
    } catch (error) {
      throw classify(error, {
        route: WRITE_ROUTES.create,
        channelId: this.channel.id,
        messageId: message.replyTo,
      });
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
      throw classify(error, { route: WRITE_ROUTES.edit, channelId: this.channel.id, messageId });
    }
  }

  async delete(messageId: string): Promise<void> {
    try {
      await this.channel.messages.delete(messageId);
    } catch (error) {
      throw classify(error, { route: WRITE_ROUTES.delete, channelId: this.channel.id, messageId });
    }
  }

  async sendTyping(): Promise<void> {
    await this.channel.sendTyping();
  }
}

/**
 * A voice message as Discord takes it in one multipart create: the flag, the one OGG file, its
 * `duration_secs` and `waveform` in `attachments[0]`, and no content.
 */
function voiceMessageOptions(voice: VoiceAttachment): MessageCreateOptions {
  const file = new AttachmentBuilder(Buffer.from(voice.ogg), { name: VOICE_MESSAGE_FILENAME })
    .setDuration(voice.durationSeconds)
    .setWaveform(voice.waveform);
  return { files: [file], flags: MessageFlags.IsVoiceMessage };
}

/** One row of the bot's buttons; none at all for an empty list. */
export function buttonRows(buttons: readonly ButtonSpec[]): Array<ActionRowBuilder<ButtonBuilder>> {
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

/** Discord says the channel or message is gone, or closed to the bot: trying again cannot help. */
export function isGoneOrClosed(error: unknown): boolean {
  const { failure } = classify(error);
  return failure === 'gone' || failure === 'forbidden';
}

/**
 * The one reader of discord.js's errors: what a failed channel write means for the bot, with
 * the request it was (`request`: the route, channel and message; the status is read here).
 */
export function classify(error: unknown, request: DeliveryRequest = {}): TargetWriteError {
  const message = error instanceof Error ? error.message : 'write failed';
  const status =
    error instanceof DiscordAPIError || error instanceof HTTPError ? error.status : undefined;
  const context = { ...request, status, cause: error };
  if (error instanceof DiscordAPIError) {
    const failure = failureOfApiError(error);
    if (failure !== undefined) return new TargetWriteError(failure, message, context);
  }
  if (error instanceof RateLimitError) {
    return new TargetWriteError('rate_limited', message, {
      ...context,
      status: 429,
      retryAfterMs: error.retryAfter,
    });
  }
  // discord.js throws HTTPError for a 5xx after its own retries.
  if (error instanceof HTTPError && error.status >= 500) {
    return new TargetWriteError('transient', message, context);
  }
  if (error instanceof Error && isNetworkFailure(error)) {
    return new TargetWriteError('transient', message, context);
  }
  return new TargetWriteError('other', message, context);
}

function failureOfApiError(error: DiscordAPIError): TargetWriteError['failure'] | undefined {
  switch (error.code) {
    // UnknownWebhook: a message of a webhook deleted since; nothing can edit or delete it now.
    case RESTJSONErrorCodes.UnknownMessage:
    case RESTJSONErrorCodes.UnknownChannel:
    case RESTJSONErrorCodes.UnknownWebhook:
      return 'gone';
    case RESTJSONErrorCodes.MaximumNumberOfEditsToMessagesOlderThanOneHourReached:
      return 'too_old_to_edit';
    // 50007, a DM to a member who accepts none from the bot: closed like a missing permission.
    case RESTJSONErrorCodes.MissingPermissions:
    case RESTJSONErrorCodes.MissingAccess:
    case RESTJSONErrorCodes.CannotSendMessagesToThisUser:
      return 'forbidden';
    case RESTJSONErrorCodes.ChannelWriteRateLimit:
      return 'rate_limited';
    default:
      break;
  }
  if (error.status === 403) return 'forbidden';
  if (error.status === 429) return 'rate_limited';
  if (error.status >= 500) return 'transient';
  return undefined;
}

function isNetworkFailure(error: Error): boolean {
  if (error.name === 'AbortError' || error.name === 'TimeoutError') return true;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
  // undici's "fetch failed" carries the socket error as its cause.
  return error.cause instanceof Error && error.cause !== error && isNetworkFailure(error.cause);
}
