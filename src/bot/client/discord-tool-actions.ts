import {
  DiscordAPIError,
  RESTJSONErrorCodes,
  Routes,
  type Client,
  type SendableChannels,
} from 'discord.js';
import { DeliveryError } from '../../core/errors.ts';
import type {
  DiscordActions,
  EmojiReference,
  GuildEmoji,
  GuildSticker,
  MessageTarget,
} from '../../tools/builtin/discord-actions.ts';
import type {
  Reminder,
  ReminderDelivery,
  ReminderDeliveryOptions,
} from '../../tools/reminders/reminder-scheduler.ts';

/** What tools may do on Discord, through the bot's client. Nothing here pings anyone but a reminder's owner. */
export class DiscordToolActions implements DiscordActions, ReminderDelivery {
  private readonly client: Client;

  constructor(client: Client) {
    this.client = client;
  }

  async listEmojis(guildId: string): Promise<readonly GuildEmoji[]> {
    const guild = await this.client.guilds.fetch(guildId);
    const emojis = guild.emojis.cache.size > 0 ? guild.emojis.cache : await guild.emojis.fetch();
    return [...emojis.values()].map((emoji) => ({
      id: emoji.id,
      name: emoji.name ?? emoji.id,
      animated: emoji.animated ?? false,
      available: emoji.available ?? true,
    }));
  }

  async listStickers(guildId: string): Promise<readonly GuildSticker[]> {
    const guild = await this.client.guilds.fetch(guildId);
    const stickers =
      guild.stickers.cache.size > 0 ? guild.stickers.cache : await guild.stickers.fetch();
    return [...stickers.values()].map((sticker) => ({
      id: sticker.id,
      name: sticker.name,
      description: sticker.description ?? undefined,
      available: sticker.available ?? true,
    }));
  }

  async react(target: MessageTarget, emoji: EmojiReference): Promise<void> {
    const channel = await this.sendable(target.channelId);
    const resolved =
      emoji.kind === 'unicode'
        ? emoji.emoji
        : `${emoji.animated ? 'a:' : ''}${emoji.name}:${emoji.id}`;
    await channel.messages.react(target.messageId, resolved);
  }

  async sendSticker(target: MessageTarget, stickerId: string): Promise<void> {
    const channel = await this.sendable(target.channelId);
    await channel.send({
      stickers: [stickerId],
      reply: { messageReference: target.messageId, failIfNotExists: false },
      allowedMentions: { parse: [], repliedUser: false },
    });
  }

  /**
   * Posts a reminder. Nothing is sent once `signal` aborts, and the send itself is aborted with
   * it; the claim is confirmed right before the send (see ReminderScheduler).
   */
  async deliver(reminder: Reminder, { signal, claim }: ReminderDeliveryOptions): Promise<void> {
    try {
      signal.throwIfAborted();
      const channel = await this.sendable(reminder.channelId);
      await claim.confirm();
      signal.throwIfAborted();
      // Through REST rather than channel.send: only the REST call takes an abort signal.
      await this.client.rest.post(Routes.channelMessages(channel.id), {
        body: {
          content: `⏰ <@${reminder.userId}> ${reminder.content}`,
          message_reference: { message_id: reminder.messageId, fail_if_not_exists: false },
          // The owner, and only the owner, is pinged: the text came through the model.
          allowed_mentions: { parse: [], users: [reminder.userId], replied_user: false },
        },
        signal,
      });
    } catch (error) {
      if (error instanceof DiscordAPIError && PERMANENT.has(Number(error.code))) {
        throw new DeliveryError(
          'reminder_undeliverable',
          'the reminder channel is gone or closed to the bot',
          {
            cause: error,
            retryable: false,
          },
        );
      }
      throw error;
    }
  }

  private async sendable(channelId: string): Promise<SendableChannels> {
    const channel = await this.client.channels.fetch(channelId);
    if (channel === null || !channel.isSendable()) {
      throw new DeliveryError('channel_unavailable', 'the channel is gone or not a text channel', {
        retryable: false,
      });
    }
    return channel;
  }
}

const PERMANENT: ReadonlySet<number> = new Set([
  RESTJSONErrorCodes.UnknownChannel,
  RESTJSONErrorCodes.MissingAccess,
  RESTJSONErrorCodes.MissingPermissions,
  RESTJSONErrorCodes.CannotSendMessagesToThisUser,
]);
