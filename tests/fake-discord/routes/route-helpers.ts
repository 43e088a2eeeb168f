import { PermissionFlagsBits } from 'discord-api-types/v10';
import type { HttpMethod, RouteDefinition, RouteRequest, RouteResult } from '../http/router.ts';
import { DiscordApiError } from '../rules/discord-error.ts';
import { hasPermission } from '../rules/permissions.ts';
import type { BucketDefinition } from '../rules/rate-limiter.ts';
import type { FakeDiscordContext } from '../services/fake-discord-context.ts';
import type { ChannelRecord } from '../state/records.ts';

/** A route the bot calls with its token, counted against the global limit. */
export function botRoute(
  method: HttpMethod,
  pattern: string,
  handle: (request: RouteRequest) => RouteResult | Promise<RouteResult>,
  bucket?: { definition: BucketDefinition; resourceParameter: string },
): RouteDefinition {
  return { method, pattern, auth: 'bot', globalLimit: true, handle, ...(bucket ? { bucket } : {}) };
}

export function json(body: unknown, status = 200): RouteResult {
  return { status, body };
}

export const NO_CONTENT: RouteResult = { status: 204 };

/** The channel, if the bot may see it (50001 Missing Access otherwise, 10003 if unknown). */
export function visibleChannel(context: FakeDiscordContext, channelId: string): ChannelRecord {
  const { world } = context;
  const channel = world.channel(channelId);
  const permissions = world.permissionsIn(channel, world.bot.userId);
  if (!hasPermission(permissions, PermissionFlagsBits.ViewChannel)) {
    throw DiscordApiError.missingAccess();
  }
  return channel;
}

/** Throws 50013 unless the bot holds `permission` in the channel. */
export function requireBotPermission(
  context: FakeDiscordContext,
  channel: ChannelRecord,
  permission: bigint,
): void {
  const { world } = context;
  if (!hasPermission(world.permissionsIn(channel, world.bot.userId), permission)) {
    throw DiscordApiError.missingPermissions();
  }
}

/** A guild the bot is in (10004 unknown, 50001 when the bot is not a member). */
export function botGuild(
  context: FakeDiscordContext,
  guildId: string,
): ReturnType<FakeDiscordContext['world']['guild']> {
  const guild = context.world.guild(guildId);
  if (!guild.members.has(context.world.bot.userId)) throw DiscordApiError.missingAccess();
  return guild;
}

/** A JSON object body (an empty object when none was sent). */
export function objectBody(request: RouteRequest): Record<string, unknown> {
  const body = request.body;
  return body !== null && typeof body === 'object' && !Array.isArray(body)
    ? (body as Record<string, unknown>)
    : {};
}
