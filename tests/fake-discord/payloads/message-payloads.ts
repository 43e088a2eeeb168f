import {
  InteractionType,
  type APIAttachment,
  type APIMessage,
  type APIMessageInteractionMetadata,
  type APIReaction,
  type APIUser,
} from 'discord-api-types/v10';
import type { AttachmentRecord, MessageRecord } from '../state/records.ts';
import type { World } from '../state/world.ts';
import { memberWithoutUser, userPayload } from './user-payloads.ts';

export interface PayloadContext {
  world: World;
  /** `http://127.0.0.1:PORT`: attachments are served from here, like cdn.discordapp.com. */
  origin: string;
}

export interface MessagePayloadOptions {
  /** Gateway events carry `guild_id` and the author's `member`; REST responses do not. */
  forGateway: boolean;
  /** Whose point of view (`me` on reactions); the bot by default. */
  viewerId?: string;
  /** How deep `referenced_message` nests (Discord sends one level). */
  depth?: number;
}

/** A message as API v10 shapes it. */
export function messagePayload(
  context: PayloadContext,
  message: MessageRecord,
  options: MessagePayloadOptions,
): APIMessage {
  const { world } = context;
  const viewerId = options.viewerId ?? world.bot.userId;
  const payload: APIMessage & { guild_id?: string; member?: unknown } = {
    id: message.id,
    type: message.type,
    channel_id: message.channelId,
    author: authorPayload(world, message),
    content: message.content,
    timestamp: new Date(message.createdAt).toISOString(),
    edited_timestamp: message.editedAt === null ? null : new Date(message.editedAt).toISOString(),
    tts: message.tts,
    mention_everyone: message.mentions.everyone,
    mentions: message.mentions.userIds.map((id) => mentionedUser(world, message, id)),
    mention_roles: [...message.mentions.roleIds],
    attachments: message.attachments.map((attachment) =>
      attachmentPayload(context, message, attachment),
    ),
    embeds: message.embeds,
    components: message.components,
    pinned: message.pinned,
    flags: message.flags,
    ...(message.nonce === null ? {} : { nonce: message.nonce }),
    ...(message.webhookId === null ? {} : { webhook_id: message.webhookId }),
    ...(message.applicationId === null ? {} : { application_id: message.applicationId }),
  };
  const reactions = reactionPayloads(message, viewerId);
  if (reactions.length > 0) payload.reactions = reactions;
  if (message.stickerIds.length > 0) {
    payload.sticker_items = message.stickerIds.map((id) => ({
      id,
      name: stickerName(world, message, id),
      format_type: 1,
    }));
  }
  if (message.reference !== null) {
    payload.message_reference = {
      type: 0,
      message_id: message.reference.messageId,
      channel_id: message.reference.channelId,
      ...(message.reference.guildId === null ? {} : { guild_id: message.reference.guildId }),
    };
    const referenced = world.messages.get(message.reference.messageId);
    const depth = options.depth ?? 0;
    payload.referenced_message =
      referenced === undefined || referenced.deletedAt !== null || depth > 0
        ? null
        : messagePayload(context, referenced, { ...options, depth: depth + 1 });
  }
  if (message.interaction !== null) {
    const invoker = userPayload(world.user(message.interaction.userId));
    payload.interaction_metadata = {
      id: message.interaction.interactionId,
      type: message.interaction.interactionType,
      user: invoker,
      authorizing_integration_owners: {},
    } as APIMessageInteractionMetadata;
    if (
      message.interaction.commandName !== null &&
      message.interaction.interactionType === InteractionType.ApplicationCommand
    ) {
      payload.interaction = {
        id: message.interaction.interactionId,
        type: message.interaction.interactionType,
        name: message.interaction.commandName,
        user: invoker,
      };
    }
  }
  const channel = world.channels.get(message.channelId);
  if (channel?.thread !== null && channel !== undefined) {
    payload.position = Math.max(0, channel.messageIds.indexOf(message.id));
  }
  if (options.forGateway && channel !== undefined) {
    // discord.js builds the partial DM channel of an uncached DM from this field.
    (payload as { channel_type?: number }).channel_type = channel.type;
  }
  if (options.forGateway && message.guildId !== null) {
    payload.guild_id = message.guildId;
    const member = world.member(message.guildId, message.authorId);
    if (member !== undefined && message.webhookId === null) {
      payload.member = memberWithoutUser(member);
    }
  }
  return payload;
}

/** A webhook message's author is the webhook, shown under the execute's name and avatar. */
function authorPayload(world: World, message: MessageRecord): APIUser {
  if (message.webhookAuthor === null) return userPayload(world.user(message.authorId));
  return {
    id: message.webhookId ?? message.authorId,
    username: message.webhookAuthor.username,
    discriminator: '0000',
    global_name: null,
    avatar:
      message.webhookAuthor.avatarUrl === null ? null : avatarHash(message.webhookAuthor.avatarUrl),
    bot: true,
  };
}

/** Discord proxies `avatar_url` and shows a hash; the fake derives a stable one from the URL. */
function avatarHash(url: string): string {
  let hash = 0;
  for (const character of url) hash = (hash * 31 + character.charCodeAt(0)) >>> 0;
  return hash.toString(16).padStart(8, '0');
}

function mentionedUser(world: World, message: MessageRecord, userId: string): APIUser {
  const user = userPayload(world.user(userId));
  if (message.guildId === null) return user;
  const member = world.member(message.guildId, userId);
  return (member === undefined ? user : { ...user, member: memberWithoutUser(member) }) as APIUser;
}

export function attachmentUrl(
  context: PayloadContext,
  location: { channelId: string; attachment: AttachmentRecord },
): string {
  const { channelId, attachment } = location;
  return `${context.origin}/attachments/${channelId}/${attachment.id}/${encodeURIComponent(attachment.filename)}`;
}

function attachmentPayload(
  context: PayloadContext,
  message: MessageRecord,
  attachment: AttachmentRecord,
): APIAttachment {
  const url = attachmentUrl(context, { channelId: message.channelId, attachment });
  return {
    id: attachment.id,
    filename: attachment.filename,
    size: attachment.data.length,
    url,
    proxy_url: url,
    ...(attachment.contentType === null ? {} : { content_type: attachment.contentType }),
    ...(attachment.description === null ? {} : { description: attachment.description }),
    ...(attachment.durationSecs === null ? {} : { duration_secs: attachment.durationSecs }),
    ...(attachment.waveform === null ? {} : { waveform: attachment.waveform }),
    ...(message.visibleTo === null ? {} : { ephemeral: true }),
  };
}

function reactionPayloads(message: MessageRecord, viewerId: string): APIReaction[] {
  return [...message.reactions.values()]
    .filter((reaction) => reaction.userIds.size > 0)
    .map((reaction) => ({
      count: reaction.userIds.size,
      count_details: { burst: 0, normal: reaction.userIds.size },
      me: reaction.userIds.has(viewerId),
      me_burst: false,
      burst_colors: [],
      emoji:
        reaction.emoji.id === null
          ? { id: null, name: reaction.emoji.name }
          : { id: reaction.emoji.id, name: reaction.emoji.name, animated: reaction.emoji.animated },
    }));
}

function stickerName(world: World, message: MessageRecord, stickerId: string): string {
  if (message.guildId === null) return 'sticker';
  const sticker = world.guilds.get(message.guildId)?.stickers.find((item) => item.id === stickerId);
  return sticker?.name ?? 'sticker';
}
