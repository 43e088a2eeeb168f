import { ChannelType, MessageFlags, type Channel, type Message } from 'discord.js';

/**
 * A Discord message reduced to what the bot's logic reads, built here at the edge from
 * discord.js: intake, context and turns never hold a discord.js object.
 */
export interface InboundAttachment {
  id: string;
  name: string;
  url: string;
  contentType: string | undefined;
  size: number;
}

/** A voice message's recording: its one audio attachment, and its length as Discord gives it. */
export interface InboundVoice {
  attachment: InboundAttachment;
  /** Undefined when Discord did not say (then the file is measured). */
  durationSeconds: number | undefined;
}

export interface InboundMessage {
  id: string;
  channelId: string;
  /** Undefined in DMs. */
  guildId: string | undefined;
  authorId: string;
  authorName: string;
  authorIsBot: boolean;
  content: string;
  createdAt: number;
  isDM: boolean;
  /** The message mentions the bot user directly (not via @everyone or a role). */
  mentionsBot: boolean;
  /** The message replies to one of the bot's messages. */
  repliesToBot: boolean;
  /** The id of the message it replies to, if any. */
  replyToMessageId: string | undefined;
  attachments: readonly InboundAttachment[];
  /** Set for a voice message (flag IS_VOICE_MESSAGE): its text is the recording's transcript. */
  voice?: InboundVoice | undefined;
  /**
   * Set when the bot itself wrote it as one of its characters, through its own webhook: never a
   * trigger, and shown to the model as that character's words.
   */
  characterName?: string | undefined;
}

/** A channel message as the history window and context assembly keep it. */
export interface HistoryMessage {
  id: string;
  authorId: string;
  authorName: string;
  authorIsBot: boolean;
  content: string;
  createdAt: number;
  attachments: readonly InboundAttachment[];
  /** The message it replies to, if any (how the bot-loop guard reads its count back). */
  replyToMessageId?: string | undefined;
  /** It mentions the bot (its content shows the mention as a name, so it is kept apart). */
  mentionsBot?: boolean | undefined;
  /** The bot's own words as one of its characters (see InboundMessage). */
  characterName?: string | undefined;
}

/** Snowflakes are numeric strings longer than 2^53 allows: compare by length, then text. */
export function compareSnowflakes(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

/** Text channels, announcement channels, public/private/announcement threads (forum posts are threads) and DMs. */
const SUPPORTED_CHANNEL_TYPES: ReadonlySet<ChannelType> = new Set([
  ChannelType.GuildText,
  ChannelType.GuildAnnouncement,
  ChannelType.PublicThread,
  ChannelType.PrivateThread,
  ChannelType.AnnouncementThread,
  ChannelType.DM,
]);

export function isSupportedChannel(channel: Channel): boolean {
  return SUPPORTED_CHANNEL_TYPES.has(channel.type);
}

/** The scope of a message: its guild, or its author for a DM (isolated from every guild). */
export function scopeOf(message: Pick<InboundMessage, 'guildId' | 'authorId'>): {
  id: string;
  kind: 'guild' | 'dm';
} {
  return message.guildId === undefined
    ? { id: message.authorId, kind: 'dm' }
    : { id: message.guildId, kind: 'guild' };
}

export function toInboundMessage(message: Message, botUserId: string): InboundMessage {
  return {
    id: message.id,
    channelId: message.channelId,
    guildId: message.guildId ?? undefined,
    authorId: message.author.id,
    authorName: displayName(message),
    authorIsBot: message.author.bot,
    content: readableContent(message),
    createdAt: message.createdTimestamp,
    isDM: message.channel.type === ChannelType.DM,
    mentionsBot: message.mentions.users.has(botUserId) && !isOnlyReplyPing(message, botUserId),
    repliesToBot: message.mentions.repliedUser?.id === botUserId,
    replyToMessageId: message.reference?.messageId ?? undefined,
    attachments: attachmentsOf(message),
    voice: voiceOf(message),
    characterName: characterVoice(message),
  };
}

export function toHistoryMessage(message: Message): HistoryMessage {
  return {
    id: message.id,
    authorId: message.author.id,
    authorName: displayName(message),
    authorIsBot: message.author.bot,
    content: readableContent(message),
    createdAt: message.createdTimestamp,
    attachments: attachmentsOf(message),
    replyToMessageId: message.reference?.messageId ?? undefined,
    mentionsBot: mentionsOwnUser(message),
    characterName: characterVoice(message),
  };
}

function mentionsOwnUser(message: Message): boolean {
  const own = message.client.user;
  return own !== null && message.mentions.users.has(own.id);
}

/**
 * The character a message of the bot's own webhook speaks as (its username). A webhook the
 * bot's application created names that application; an interaction's response does too, but
 * under the application's own id as its webhook id, and is the bot speaking as itself.
 */
export function characterVoice(message: Message): string | undefined {
  const applicationId = message.client.application?.id;
  if (message.webhookId === null || applicationId === undefined) return undefined;
  if (message.applicationId !== applicationId || message.webhookId === applicationId) {
    return undefined;
  }
  return message.author.username;
}

function displayName(message: Message): string {
  return message.member?.displayName ?? message.author.displayName;
}

/** Mentions as readable @names (the model reads names, and never sees raw ids it could echo). */
function readableContent(message: Message): string {
  return message.cleanContent;
}

/** A reply with "ping" on adds the replied user to mentions; that is a reply, not a mention. */
function isOnlyReplyPing(message: Message, botUserId: string): boolean {
  return (
    message.mentions.repliedUser?.id === botUserId &&
    !message.content.includes(`<@${botUserId}>`) &&
    !message.content.includes(`<@!${botUserId}>`)
  );
}

function voiceOf(message: Message): InboundVoice | undefined {
  if (!message.flags.has(MessageFlags.IsVoiceMessage)) return undefined;
  const audio = message.attachments.find((attachment) =>
    (attachment.contentType ?? '').startsWith('audio/'),
  );
  if (audio === undefined) return undefined;
  return {
    attachment: {
      id: audio.id,
      name: audio.name,
      url: audio.url,
      contentType: audio.contentType ?? undefined,
      size: audio.size,
    },
    durationSeconds: audio.duration ?? undefined,
  };
}

function attachmentsOf(message: Message): InboundAttachment[] {
  return [...message.attachments.values()].map((attachment) => ({
    id: attachment.id,
    name: attachment.name,
    url: attachment.url,
    contentType: attachment.contentType ?? undefined,
    size: attachment.size,
  }));
}
