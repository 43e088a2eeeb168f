/**
 * How much the process remembers: every cache keyed by channels, scopes, members or messages is
 * bounded by one of these, so memory stays flat however many servers and members the bot hears.
 * Parsed from the environment once (CACHE_* and DISCORD_CACHE_*, see README "Memory bounds").
 */
export interface CacheLimits {
  /**
   * Channels the bot keeps state for (CACHE_CHANNELS): recent-message windows, activity marks for
   * the backfill, write budgets, every-N counts, bot-run guards, channel settings. The least
   * recently active is forgotten first and read again when needed.
   */
  channels: number;
  /** Messages in each channel's recent window (CACHE_HISTORY_PER_CHANNEL). */
  historyPerChannel: number;
  /**
   * Servers (and DM members) whose settings, trigger words, daily-budget tallies and known
   * scope rows are kept (CACHE_SCOPES).
   */
  scopes: number;
  /** discord.js: messages kept per channel (DISCORD_CACHE_MESSAGES); the bot reads its own window. */
  discordMessagesPerChannel: number;
  /** discord.js: members kept per server, the bot's own always among them (DISCORD_CACHE_MEMBERS). */
  discordMembersPerGuild: number;
  /** discord.js: users kept, the bot's own always among them (DISCORD_CACHE_USERS). */
  discordUsers: number;
}

export const DEFAULT_CACHE_LIMITS: Readonly<CacheLimits> = {
  channels: 5_000,
  historyPerChannel: 50,
  scopes: 10_000,
  discordMessagesPerChannel: 10,
  discordMembersPerGuild: 200,
  discordUsers: 10_000,
};
