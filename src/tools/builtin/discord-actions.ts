/**
 * The port through which tools act on Discord. Tools never import discord.js; the bot
 * implements this with its client and the ids of the turn being answered.
 */

export interface GuildEmoji {
  id: string;
  name: string;
  animated: boolean;
  /** False when the server lost the boost level the emoji needs. */
  available: boolean;
}

export interface GuildSticker {
  id: string;
  name: string;
  description: string | undefined;
  available: boolean;
}

/** The message being answered. */
export interface MessageTarget {
  guildId: string | undefined;
  channelId: string;
  messageId: string;
}

/** A validated emoji: a standard one, or a custom emoji of the guild being answered in. */
export type EmojiReference =
  | { kind: 'unicode'; emoji: string }
  | { kind: 'custom'; id: string; name: string; animated: boolean };

export interface DiscordActions {
  listEmojis(guildId: string, signal: AbortSignal): Promise<readonly GuildEmoji[]>;
  listStickers(guildId: string, signal: AbortSignal): Promise<readonly GuildSticker[]>;
  /** Adds the bot's reaction to the target message. */
  react(target: MessageTarget, emoji: EmojiReference, signal: AbortSignal): Promise<void>;
  /**
   * Sends a guild sticker in reply to the target message. The bot may hold it back until the
   * reply's text has been sent, so the sticker follows the words.
   */
  sendSticker(target: MessageTarget, stickerId: string, signal: AbortSignal): Promise<void>;
}
