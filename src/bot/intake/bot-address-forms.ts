import type { Message } from 'discord.js';

/**
 * The ways a member's message may name the bot, as the stop matcher reads it: the mention as
 * `cleanContent` shows it (`@` + the bot's server nickname, or its user display name or username
 * where no member is cached) and the scope's trigger words.
 */
export function botAddressForms(message: Message, triggerWords: readonly string[]): string[] {
  const user = message.client.user;
  const names = [message.guild?.members.me?.displayName, user.displayName, user.username];
  const mentions = names.filter((name) => name !== undefined).map((name) => `@${name}`);
  return [...new Set([...mentions, ...triggerWords])];
}
