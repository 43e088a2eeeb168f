import { ChannelType, PermissionFlagsBits } from 'discord-api-types/v10';
import type { Clock } from '../../../src/core/clock.ts';
import { channelPermissions, DIRECT_MESSAGE_PERMISSIONS, isThread } from '../rules/permissions.ts';
import { DiscordApiError } from '../rules/discord-error.ts';
import type {
  AttachmentRecord,
  ChannelRecord,
  GuildRecord,
  MemberRecord,
  MessageRecord,
  UserRecord,
  WebhookRecord,
} from './records.ts';
import type { SnowflakeFactory } from './snowflake-factory.ts';

const WEBHOOK_PERMISSIONS =
  PermissionFlagsBits.ViewChannel |
  PermissionFlagsBits.SendMessages |
  PermissionFlagsBits.SendMessagesInThreads |
  PermissionFlagsBits.EmbedLinks |
  PermissionFlagsBits.AttachFiles |
  PermissionFlagsBits.MentionEveryone |
  PermissionFlagsBits.ReadMessageHistory;

/** The bot application under test: its user, its token and its portal settings. */
export interface BotIdentity {
  userId: string;
  applicationId: string;
  token: string;
  /** Privileged intents switched on in the developer portal (bits of GatewayIntentBits). */
  privilegedIntents: number;
}

/**
 * All state of the fake Discord: users, guilds (roles, members), channels and messages. Plain
 * maps; every rule that reads them lives in `../rules` and every change in `../services`.
 */
export class World {
  readonly clock: Clock;
  readonly ids: SnowflakeFactory;
  readonly bot: BotIdentity;
  readonly users = new Map<string, UserRecord>();
  readonly guilds = new Map<string, GuildRecord>();
  readonly channels = new Map<string, ChannelRecord>();
  readonly messages = new Map<string, MessageRecord>();
  /** Channel webhooks by id (deleted ones are removed; their messages stay). */
  readonly webhooks = new Map<string, WebhookRecord>();
  /** Every uploaded file by attachment id, for the CDN stand-in (`/attachments/...`). */
  readonly uploads = new Map<string, { channelId: string; attachment: AttachmentRecord }>();
  /**
   * Files announced with POST /channels/{id}/attachments, by `upload_filename`: their bytes once
   * PUT to the upload URL, until a message takes them (`attachments[].uploaded_filename`).
   */
  readonly pendingUploads = new Map<
    string,
    { channelId: string; filename: string; fileSize: number; data: Buffer | undefined }
  >();
  /** channel id → typist id → epoch ms when the indicator expires. */
  readonly typing = new Map<string, Map<string, number>>();

  constructor(options: { clock: Clock; ids: SnowflakeFactory; bot: BotIdentity }) {
    this.clock = options.clock;
    this.ids = options.ids;
    this.bot = options.bot;
  }

  user(id: string): UserRecord {
    const user = this.users.get(id);
    if (user === undefined) throw DiscordApiError.unknown('User');
    return user;
  }

  guild(id: string): GuildRecord {
    const guild = this.guilds.get(id);
    if (guild === undefined) throw DiscordApiError.unknown('Guild');
    return guild;
  }

  channel(id: string): ChannelRecord {
    const channel = this.channels.get(id);
    if (channel === undefined) throw DiscordApiError.unknown('Channel');
    return channel;
  }

  /** A live message in `channelId` (10008 when missing or deleted). */
  message(channelId: string, messageId: string): MessageRecord {
    const message = this.messages.get(messageId);
    if (message === undefined || message.channelId !== channelId || message.deletedAt !== null) {
      throw DiscordApiError.unknown('Message');
    }
    return message;
  }

  /** A live webhook (10015 Unknown Webhook when missing or deleted). */
  webhook(id: string): WebhookRecord {
    const webhook = this.webhooks.get(id);
    if (webhook === undefined) throw DiscordApiError.unknown('Webhook');
    return webhook;
  }

  member(guildId: string, userId: string): MemberRecord | undefined {
    return this.guilds.get(guildId)?.members.get(userId);
  }

  /** Guilds the bot is a member of (what READY lists). */
  botGuilds(): GuildRecord[] {
    return [...this.guilds.values()].filter((guild) => guild.members.has(this.bot.userId));
  }

  /** A user's permissions in a channel; DMs grant the DM set to their participants. */
  permissionsIn(channel: ChannelRecord, userId: string): bigint {
    if (channel.guildId === null) {
      const participant = userId === this.bot.userId || channel.recipientIds.includes(userId);
      return participant ? DIRECT_MESSAGE_PERMISSIONS : 0n;
    }
    // A webhook posts with every text permission, @everyone included: only the request's
    // allowed_mentions keeps its messages from pinging.
    if (this.webhooks.has(userId)) return WEBHOOK_PERMISSIONS;
    const guild = this.guild(channel.guildId);
    const member = guild.members.get(userId);
    if (member === undefined) return 0n;
    const parent =
      isThread(channel) && channel.parentId !== null
        ? this.channels.get(channel.parentId)
        : undefined;
    return channelPermissions({ guild, channel, parent, member, now: this.clock.now() });
  }

  /** Live messages of a channel, oldest first. */
  messagesIn(channelId: string): MessageRecord[] {
    const channel = this.channels.get(channelId);
    if (channel === undefined) return [];
    return channel.messageIds.flatMap((id) => {
      const message = this.messages.get(id);
      return message === undefined ? [] : [message];
    });
  }

  /** The DM channel between the bot and `userId`, if one was opened. */
  directMessageChannel(userId: string): ChannelRecord | undefined {
    for (const channel of this.channels.values()) {
      if (channel.type === ChannelType.DM && channel.recipientIds[0] === userId) return channel;
    }
    return undefined;
  }
}
