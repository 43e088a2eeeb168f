import {
  GatewayIntentBits,
  type GatewayGuildCreateDispatchData,
  type GatewayGuildMembersChunkDispatchData,
  type GatewayReadyDispatchData,
} from 'discord-api-types/v10';
import { guildCreatePayload } from '../payloads/guild-payloads.ts';
import { memberPayload, userPayload } from '../payloads/user-payloads.ts';
import type { World } from '../state/world.ts';
import type { GatewaySession } from './gateway-session.ts';
import { applicationFlagsFor } from './intents.ts';
import { shardReceives } from './shard-routing.ts';

/**
 * READY: the bot user, every guild of the session's shard as unavailable (their GUILD_CREATE
 * follows), the session id,
 * the URL to resume on, the shard, and the application with the privileged-intent flags.
 */
export function buildReady(
  world: World,
  session: GatewaySession,
  resumeUrl: string,
): GatewayReadyDispatchData {
  return {
    v: 10,
    user: { ...userPayload(world.user(world.bot.userId)), verified: true, mfa_enabled: false },
    guilds: shardGuilds(world, session).map((guild) => ({ id: guild.id, unavailable: true })),
    session_id: session.id,
    resume_gateway_url: resumeUrl,
    shard: [session.shard[0], session.shard[1]],
    application: {
      id: world.bot.applicationId,
      flags: applicationFlagsFor(world.bot.privilegedIntents),
      flags_new: String(applicationFlagsFor(world.bot.privilegedIntents)),
    },
  };
}

export function guildCreateEvents(
  world: World,
  session: GatewaySession,
): GatewayGuildCreateDispatchData[] {
  const allMembers = (session.intents & GatewayIntentBits.GuildMembers) !== 0;
  return shardGuilds(world, session).map((guild) =>
    guildCreatePayload(world, guild, { allMembers }),
  );
}

function shardGuilds(world: World, session: GatewaySession) {
  return world.botGuilds().filter((guild) => shardReceives(session.shard, guild.id));
}

/** Answers op 8 (Request Guild Members) by user ids or username prefix, in one chunk. */
export function membersChunk(
  world: World,
  request: unknown,
): GatewayGuildMembersChunkDispatchData | undefined {
  const data = (request ?? {}) as {
    guild_id?: unknown;
    user_ids?: unknown;
    query?: unknown;
    limit?: unknown;
    nonce?: unknown;
  };
  const guild = typeof data.guild_id === 'string' ? world.guilds.get(data.guild_id) : undefined;
  if (guild === undefined) return undefined;
  const wanted = Array.isArray(data.user_ids)
    ? new Set(data.user_ids.map(String))
    : typeof data.user_ids === 'string'
      ? new Set([data.user_ids])
      : undefined;
  const query = typeof data.query === 'string' ? data.query.toLowerCase() : '';
  const limit = typeof data.limit === 'number' && data.limit > 0 ? data.limit : Infinity;
  const members = [...guild.members.values()]
    .filter((member) =>
      wanted !== undefined
        ? wanted.has(member.userId)
        : world.user(member.userId).username.toLowerCase().startsWith(query),
    )
    .slice(0, limit);
  const notFound = wanted === undefined ? [] : [...wanted].filter((id) => !guild.members.has(id));
  return {
    guild_id: guild.id,
    members: members.map((member) => memberPayload(member, world.user(member.userId))),
    chunk_index: 0,
    chunk_count: 1,
    ...(notFound.length > 0 ? { not_found: notFound } : {}),
    ...(typeof data.nonce === 'string' ? { nonce: data.nonce } : {}),
  };
}
