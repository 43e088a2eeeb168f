import {
  ActionRowBuilder,
  ButtonBuilder,
  ButtonStyle,
  DiscordAPIError,
  RESTJSONErrorCodes,
  type MessageCreateOptions,
  type SendableChannels,
} from 'discord.js';
import {
  type AllowedMentions,
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
    if (message.replyTo !== undefined) {
      options.reply = { messageReference: message.replyTo, failIfNotExists: false };
    }
    if (message.components !== undefined && message.components.length > 0) {
      options.components = [
        new ActionRowBuilder<ButtonBuilder>().addComponents(
          message.components.map((button) =>
            new ButtonBuilder()
              .setCustomId(button.customId)
              .setLabel(button.label)
              .setStyle(ButtonStyle.Secondary),
          ),
        ),
      ];
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

function classify(error: unknown): TargetWriteError {
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
    if (error.status === 429)
      return new TargetWriteError('rate_limited', error.message, { cause: error });
  }
  return new TargetWriteError('other', error instanceof Error ? error.message : 'write failed', {
    cause: error,
  });
}
