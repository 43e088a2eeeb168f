import type { Client, SendableChannels } from 'discord.js';
import { abortError } from '../../core/clock.ts';
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
import { type ChannelWriter, type DeliveryPort, newNonce } from './delivery-port.ts';
import { classify, DiscordMessageTarget } from './discord-message-target.ts';
import { allowedMentionsFor, TargetWriteError } from './message-target.ts';

/**
 * What tools may do on Discord, through the bot's client; stickers and reminders are channel
 * writes, through the delivery port. Nothing here pings anyone but a reminder's owner.
 */
export class DiscordToolActions implements DiscordActions, ReminderDelivery {
  private readonly client: Client;
  private readonly delivery: DeliveryPort;

  constructor(client: Client, delivery: DeliveryPort) {
    this.client = client;
    this.delivery = delivery;
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

  async sendSticker(target: MessageTarget, stickerId: string, signal: AbortSignal): Promise<void> {
    const writer = await this.writerFor(target.channelId);
    const outcome = await writer.post(
      {
        content: '',
        stickerIds: [stickerId],
        replyTo: target.messageId,
        allowedMentions: allowedMentionsFor({ allowUserMentions: false }),
      },
      signal,
    );
    if (outcome.kind === 'failed') throw outcome.failure;
    if (outcome.kind === 'abandoned') throw abortError(signal);
  }

  /**
   * Posts a reminder. Nothing is sent once `signal` aborts, and the send itself is aborted with
   * it; the claim is confirmed right before the send (see ReminderScheduler), once the channel's
   * budget has a token for it. A retry of the send reuses its nonce: it never posts twice.
   */
  async deliver(reminder: Reminder, { signal, claim }: ReminderDeliveryOptions): Promise<void> {
    signal.throwIfAborted();
    const writer = await this.writerFor(reminder.channelId).catch((error: unknown) => {
      throw error instanceof TargetWriteError ? undelivered(error) : error;
    });
    if (!(await writer.takeToken(signal))) throw abortError(signal);
    await claim.confirm();
    signal.throwIfAborted();
    const message = {
      content: `⏰ <@${reminder.userId}> ${reminder.content}`,
      replyTo: reminder.messageId,
      nonce: newNonce(),
      // The owner, and only the owner, is pinged: the text came through the model.
      allowedMentions: { parse: [], users: [reminder.userId], repliedUser: false },
    };
    const outcome = await writer.attempt(() => writer.create(message, signal), signal);
    if (outcome.kind === 'abandoned') throw abortError(signal);
    if (outcome.kind === 'failed') throw undelivered(outcome.failure);
  }

  /** The channel's writer; a channel Discord refuses to show us fails like a refused write. */
  private async writerFor(channelId: string): Promise<ChannelWriter> {
    return this.delivery.to(new DiscordMessageTarget(await this.sendable(channelId)));
  }

  private async sendable(channelId: string): Promise<SendableChannels> {
    const channel = await this.client.channels.fetch(channelId).catch((error: unknown) => {
      throw classify(error, { route: 'GET /channels/:id', channelId });
    });
    if (channel === null || !channel.isSendable()) {
      throw new DeliveryError('channel_unavailable', 'the channel is gone or not a text channel', {
        channelId,
        retryable: false,
      });
    }
    return channel;
  }
}

/**
 * A reminder whose channel is gone or closed to the bot is never sent (the scheduler gives up
 * at once); any other failure is tried again at the scheduler's next attempt.
 */
function undelivered(failure: TargetWriteError): DeliveryError {
  const permanent = failure.failure === 'gone' || failure.failure === 'forbidden';
  return new DeliveryError(
    permanent ? 'reminder_undeliverable' : 'reminder_not_sent',
    permanent ? 'the reminder channel is gone or closed to the bot' : failure.message,
    { ...failure.request, cause: failure, retryable: !permanent },
  );
}
