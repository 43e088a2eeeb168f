import { Options, type CacheFactory, type SweeperOptions } from 'discord.js';
import type { CacheLimits } from '../../core/cache-limits.ts';

/** How often idle messages are swept, and how old they must be: the bot reads its own window. */
const MESSAGE_SWEEP_INTERVAL_S = 300;
const MESSAGE_LIFETIME_S = 900;
/** Members and users not heard from are dropped hourly (the bot's own are always kept). */
const PEOPLE_SWEEP_INTERVAL_S = 3_600;

interface HasClient {
  id: string;
  client: { user: { id: string } | null };
}

/** The bot's own user and member: `guild.members.me` is read for its display name and rights. */
function isTheBot(entry: HasClient): boolean {
  return entry.id === entry.client.user?.id;
}

/**
 * discord.js caches bounded by the operator's limits. Guilds, channels, roles and emojis stay
 * whole (the bot resolves every message's channel and guild from them, and they grow with
 * servers, not traffic); messages, members and users are capped and swept; caches the bot never
 * reads (presences, voice states, invites, bans, scheduled events, thread members, stage
 * instances) keep nothing. Whatever is dropped is fetched again where the bot needs it. With
 * voice channels on, voice states are kept (who is in a channel with the bot): one per member
 * in a voice channel, gone when they leave.
 */
export function discordCacheFactory(
  limits: CacheLimits,
  options: { voiceStates?: boolean } = {},
): CacheFactory {
  return Options.cacheWithLimits({
    ...Options.DefaultMakeCacheSettings,
    MessageManager: limits.discordMessagesPerChannel,
    GuildMemberManager: { maxSize: limits.discordMembersPerGuild, keepOverLimit: isTheBot },
    UserManager: { maxSize: limits.discordUsers, keepOverLimit: isTheBot },
    PresenceManager: 0,
    ...(options.voiceStates === true ? {} : { VoiceStateManager: 0 }),
    GuildInviteManager: 0,
    GuildBanManager: 0,
    GuildScheduledEventManager: 0,
    ThreadMemberManager: 0,
    StageInstanceManager: 0,
  });
}

/** Sweeps what the limits alone would keep forever in a quiet cache. */
export function discordSweepers(): SweeperOptions {
  return {
    ...Options.DefaultSweeperSettings,
    messages: { interval: MESSAGE_SWEEP_INTERVAL_S, lifetime: MESSAGE_LIFETIME_S },
    users: { interval: PEOPLE_SWEEP_INTERVAL_S, filter: () => (user) => !isTheBot(user) },
    guildMembers: {
      interval: PEOPLE_SWEEP_INTERVAL_S,
      filter: () => (member) => !isTheBot(member),
    },
  };
}
