/** A Discord message reduced to what the bot's logic needs; built at the edge from discord.js. */
export interface InboundAttachment {
  id: string;
  name: string;
  url: string;
  contentType: string | undefined;
  size: number;
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
}
