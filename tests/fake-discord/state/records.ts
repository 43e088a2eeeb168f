/**
 * The fake Discord's own storage shapes. They hold what Discord keeps server-side (bigint
 * permissions, raw bytes of uploads, who may see an ephemeral message); the payload builders
 * in `../payloads` turn them into the API v10 wire shapes the client sees.
 */
import type {
  APIEmbed,
  APIGuildForumTag,
  APIMessageTopLevelComponent,
  ChannelType,
  InteractionType,
  MessageType,
} from 'discord-api-types/v10';

export interface UserRecord {
  id: string;
  username: string;
  globalName: string | null;
  bot: boolean;
  avatar: string | null;
  /** False models a user whose privacy settings refuse DMs from the bot (50007). */
  acceptsDirectMessages: boolean;
}

export interface RoleRecord {
  id: string;
  guildId: string;
  name: string;
  permissions: bigint;
  position: number;
  color: number;
  hoist: boolean;
  mentionable: boolean;
  /** Set for the role Discord creates for a bot when it joins (`tags.bot_id`). */
  managedByBotId: string | null;
}

export interface MemberRecord {
  guildId: string;
  userId: string;
  roleIds: string[];
  nick: string | null;
  joinedAt: number;
  /** Epoch ms until which the member is timed out, or null. */
  timedOutUntil: number | null;
}

export interface EmojiRecord {
  id: string;
  name: string;
  animated: boolean;
}

export interface StickerRecord {
  id: string;
  name: string;
  description: string;
  tags: string;
}

export interface GuildRecord {
  id: string;
  name: string;
  ownerId: string;
  preferredLocale: string;
  createdAt: number;
  roles: Map<string, RoleRecord>;
  members: Map<string, MemberRecord>;
  emojis: EmojiRecord[];
  stickers: StickerRecord[];
  channelIds: string[];
}

export interface OverwriteRecord {
  id: string;
  /** 0 = role, 1 = member (Discord's OverwriteType). */
  type: 0 | 1;
  allow: bigint;
  deny: bigint;
}

export interface ThreadRecord {
  ownerId: string;
  archived: boolean;
  locked: boolean;
  invitable: boolean;
  autoArchiveDuration: 60 | 1440 | 4320 | 10080;
  createdAt: number;
  memberIds: Set<string>;
  appliedTags: string[];
}

export interface ChannelRecord {
  id: string;
  type: ChannelType;
  guildId: string | null;
  name: string | null;
  parentId: string | null;
  position: number;
  topic: string | null;
  nsfw: boolean;
  rateLimitPerUser: number;
  overwrites: OverwriteRecord[];
  /** DM recipients (the other user; the bot is implied). */
  recipientIds: string[];
  thread: ThreadRecord | null;
  availableTags: APIGuildForumTag[];
  /** Ids of live (not deleted) messages, oldest first. */
  messageIds: string[];
  lastMessageId: string | null;
  /** Messages ever sent here (threads report it as `total_message_sent`). */
  messagesSent: number;
}

export interface AttachmentRecord {
  id: string;
  filename: string;
  description: string | null;
  contentType: string | null;
  data: Buffer;
  /** A voice message's length and base64 waveform (null for other files). */
  durationSecs: number | null;
  waveform: string | null;
}

export interface ResolvedMentions {
  everyone: boolean;
  userIds: string[];
  roleIds: string[];
}

export interface ReactionRecord {
  emoji: { id: string | null; name: string; animated: boolean };
  userIds: Set<string>;
}

export interface MessageInteractionRecord {
  interactionId: string;
  interactionType: InteractionType;
  userId: string;
  commandName: string | null;
}

export interface MessageRecord {
  id: string;
  channelId: string;
  guildId: string | null;
  authorId: string;
  type: MessageType;
  content: string;
  embeds: APIEmbed[];
  components: APIMessageTopLevelComponent[];
  attachments: AttachmentRecord[];
  stickerIds: string[];
  flags: number;
  tts: boolean;
  nonce: string | number | null;
  createdAt: number;
  editedAt: number | null;
  deletedAt: number | null;
  reference: { messageId: string; channelId: string; guildId: string | null } | null;
  mentions: ResolvedMentions;
  pinned: boolean;
  reactions: Map<string, ReactionRecord>;
  webhookId: string | null;
  /** A channel webhook's message: the name and avatar it was executed under (the author). */
  webhookAuthor: WebhookAuthorRecord | null;
  applicationId: string | null;
  interaction: MessageInteractionRecord | null;
  /** Ephemeral messages are visible to this one user only; null for everyone. */
  visibleTo: string | null;
  editCount: number;
}

/** A channel webhook (type 1, incoming): executed with its token, no bot authorization. */
export interface WebhookRecord {
  id: string;
  token: string;
  channelId: string;
  guildId: string;
  name: string;
  avatar: string | null;
  /** The user who created it (the bot, or a member acting in a test). */
  creatorId: string;
  /** Set when the bot's application created it (such a webhook may send components). */
  applicationId: string | null;
  createdAt: number;
}

/** Who a webhook message shows as its author: per-execute `username`/`avatar_url` overrides. */
export interface WebhookAuthorRecord {
  username: string;
  avatarUrl: string | null;
}
