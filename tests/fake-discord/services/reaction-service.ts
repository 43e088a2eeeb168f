import { PermissionFlagsBits } from 'discord-api-types/v10';
import { dispatchInChannel } from '../gateway/channel-dispatch.ts';
import { memberPayload } from '../payloads/user-payloads.ts';
import { DiscordApiError } from '../rules/discord-error.ts';
import { hasPermission } from '../rules/permissions.ts';
import type { MessageRecord, ReactionRecord } from '../state/records.ts';
import type { FakeDiscordContext } from './fake-discord-context.ts';

/**
 * Reactions: `👍` (unicode) or `name:id` (custom, must exist in one of the bot's guilds).
 * Adding a new reaction needs ADD_REACTIONS; joining an existing one only READ_MESSAGE_HISTORY.
 */
export class ReactionService {
  readonly #context: FakeDiscordContext;

  constructor(context: FakeDiscordContext) {
    this.#context = context;
  }

  add(options: { channelId: string; messageId: string; userId: string; emoji: string }): void {
    const { world } = this.#context;
    const message = world.message(options.channelId, options.messageId);
    const emoji = this.#parseEmoji(options.emoji);
    const key = emoji.id ?? emoji.name;
    const existing = message.reactions.get(key);
    const permissions = world.permissionsIn(world.channel(message.channelId), options.userId);
    const needed =
      PermissionFlagsBits.ReadMessageHistory |
      (existing === undefined || existing.userIds.size === 0
        ? PermissionFlagsBits.AddReactions
        : 0n);
    if (!hasPermission(permissions, needed)) throw DiscordApiError.missingPermissions();
    const reaction = existing ?? { emoji, userIds: new Set<string>() };
    message.reactions.set(key, reaction);
    if (reaction.userIds.has(options.userId)) return;
    reaction.userIds.add(options.userId);
    this.#publish(message, reaction, options.userId, true);
  }

  remove(options: {
    channelId: string;
    messageId: string;
    userId: string;
    emoji: string;
    actorId: string;
  }): void {
    const { world } = this.#context;
    const message = world.message(options.channelId, options.messageId);
    if (options.actorId !== options.userId) {
      const permissions = world.permissionsIn(world.channel(message.channelId), options.actorId);
      if (!hasPermission(permissions, PermissionFlagsBits.ManageMessages)) {
        throw DiscordApiError.missingPermissions();
      }
    }
    const emoji = this.#parseEmoji(options.emoji);
    const reaction = message.reactions.get(emoji.id ?? emoji.name);
    if (reaction?.userIds.delete(options.userId) !== true) return;
    this.#publish(message, reaction, options.userId, false);
  }

  /** Users who reacted with `emoji`, in the order they did. */
  users(options: { channelId: string; messageId: string; emoji: string }): string[] {
    const message = this.#context.world.message(options.channelId, options.messageId);
    const emoji = this.#parseEmoji(options.emoji);
    return [...(message.reactions.get(emoji.id ?? emoji.name)?.userIds ?? [])];
  }

  #parseEmoji(raw: string): ReactionRecord['emoji'] {
    const custom = /^(a:)?([\w-]+):(\d{15,21})$/.exec(raw);
    if (custom === null) {
      if (raw.trim() === '' || /^[\w-]+$/.test(raw)) {
        throw new DiscordApiError({ status: 400, code: 10014, message: 'Unknown Emoji' });
      }
      return { id: null, name: raw, animated: false };
    }
    const id = custom[3] ?? '';
    const known = this.#context.world
      .botGuilds()
      .some((guild) => guild.emojis.some((emoji) => emoji.id === id));
    if (!known) throw new DiscordApiError({ status: 400, code: 10014, message: 'Unknown Emoji' });
    return { id, name: custom[2] ?? '', animated: custom[1] !== undefined };
  }

  #publish(message: MessageRecord, reaction: ReactionRecord, userId: string, added: boolean): void {
    const { world, hub } = this.#context;
    hub.emit({
      type: 'reaction',
      messageId: message.id,
      userId,
      emoji: reaction.emoji.id ?? reaction.emoji.name,
      added,
    });
    const member = message.guildId === null ? undefined : world.member(message.guildId, userId);
    dispatchInChannel(this.#context, {
      type: added ? 'MESSAGE_REACTION_ADD' : 'MESSAGE_REACTION_REMOVE',
      channel: world.channel(message.channelId),
      build: () => ({
        user_id: userId,
        channel_id: message.channelId,
        message_id: message.id,
        emoji:
          reaction.emoji.id === null
            ? { id: null, name: reaction.emoji.name }
            : {
                id: reaction.emoji.id,
                name: reaction.emoji.name,
                animated: reaction.emoji.animated,
              },
        burst: false,
        type: 0,
        ...(message.guildId === null ? {} : { guild_id: message.guildId }),
        ...(added ? { message_author_id: message.authorId } : {}),
        ...(added && member !== undefined
          ? { member: memberPayload(member, world.user(userId)) }
          : {}),
      }),
    });
  }
}
