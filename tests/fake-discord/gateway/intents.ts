import { ApplicationFlags, GatewayIntentBits, type APIMessage } from 'discord-api-types/v10';

/** Every intent bit Discord defines; IDENTIFY with any other bit is closed with 4013. */
export const KNOWN_INTENTS = Object.values(GatewayIntentBits)
  .filter((value): value is number => typeof value === 'number')
  .reduce((all, bit) => all | bit, 0);

/** Intents that must be switched on in the developer portal (4014 otherwise). */
export const PRIVILEGED_INTENTS =
  GatewayIntentBits.GuildMembers |
  GatewayIntentBits.GuildPresences |
  GatewayIntentBits.MessageContent;

/**
 * READY's `application.flags` for the privileged intents enabled in the portal. An unverified
 * bot (under 100 servers) gets the `_LIMITED` flags, which is what a test bot is.
 */
export function applicationFlagsFor(privilegedIntents: number): number {
  let flags = 0;
  if ((privilegedIntents & GatewayIntentBits.MessageContent) !== 0) {
    flags |= ApplicationFlags.GatewayMessageContentLimited;
  }
  if ((privilegedIntents & GatewayIntentBits.GuildMembers) !== 0) {
    flags |= ApplicationFlags.GatewayGuildMembersLimited;
  }
  if ((privilegedIntents & GatewayIntentBits.GuildPresences) !== 0) {
    flags |= ApplicationFlags.GatewayPresenceLimited;
  }
  return flags;
}

/** The intent a dispatch needs, or null when every session receives it. */
export function intentFor(type: string, inGuild: boolean): number | null {
  if (type.startsWith('MESSAGE_REACTION_')) {
    return inGuild
      ? GatewayIntentBits.GuildMessageReactions
      : GatewayIntentBits.DirectMessageReactions;
  }
  if (type.startsWith('MESSAGE_')) {
    return inGuild ? GatewayIntentBits.GuildMessages : GatewayIntentBits.DirectMessages;
  }
  if (type === 'TYPING_START') {
    return inGuild ? GatewayIntentBits.GuildMessageTyping : GatewayIntentBits.DirectMessageTyping;
  }
  if (type.startsWith('GUILD_MEMBER_') || type === 'GUILD_MEMBERS_CHUNK') {
    return GatewayIntentBits.GuildMembers;
  }
  if (type === 'GUILD_EMOJIS_UPDATE' || type === 'GUILD_STICKERS_UPDATE') {
    return GatewayIntentBits.GuildExpressions;
  }
  if (type.startsWith('GUILD_') || type.startsWith('CHANNEL_') || type.startsWith('THREAD_')) {
    return GatewayIntentBits.Guilds;
  }
  return null;
}

/**
 * Without the MESSAGE_CONTENT intent a guild message arrives with empty content, embeds,
 * attachments, components and poll — unless the bot wrote it or is mentioned in it. DMs always
 * carry content.
 */
export function applyMessageContentIntent(
  message: APIMessage & { guild_id?: string },
  options: { intents: number; botUserId: string },
): APIMessage {
  if ((options.intents & GatewayIntentBits.MessageContent) !== 0) return message;
  if (message.guild_id === undefined) return message;
  if (message.author.id === options.botUserId) return message;
  if (message.mentions.some((user) => user.id === options.botUserId)) return message;
  const { poll: _poll, ...rest } = message;
  return { ...rest, content: '', embeds: [], attachments: [], components: [] };
}
