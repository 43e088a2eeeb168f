import type { APIInteraction, APIMessage, InteractionType } from 'discord-api-types/v10';
import { channelPayload } from '../payloads/channel-payloads.ts';
import { memberPayload, userPayload } from '../payloads/user-payloads.ts';
import { DISCORD_LIMITS } from '../rules/message-limits.ts';
import type { FakeDiscordContext } from '../services/fake-discord-context.ts';

/**
 * The fields every interaction carries: who (member with channel permissions in a guild, user
 * in a DM), where (guild, channel), the bot's `app_permissions`, locales, context and the
 * installation owners, plus the type-specific `data` and (for components) `message`.
 */
export function interactionEnvelope(
  context: FakeDiscordContext,
  input: {
    id: string;
    token: string;
    type: InteractionType;
    userId: string;
    channelId: string;
    locale: string;
    data?: unknown;
    message?: APIMessage;
  },
): APIInteraction {
  const { world } = context;
  const channel = world.channel(input.channelId);
  const user = world.user(input.userId);
  const guild = channel.guildId === null ? undefined : world.guild(channel.guildId);
  const member = guild?.members.get(input.userId);
  const who =
    guild !== undefined && member !== undefined
      ? {
          member: {
            ...memberPayload(member, user),
            permissions: world.permissionsIn(channel, input.userId).toString(),
          },
        }
      : { user: userPayload(user) };
  return {
    id: input.id,
    application_id: world.bot.applicationId,
    type: input.type,
    token: input.token,
    version: 1,
    ...(input.data === undefined ? {} : { data: input.data }),
    ...(guild === undefined
      ? { context: 1, authorizing_integration_owners: { '0': '0' } }
      : {
          guild_id: guild.id,
          guild: { id: guild.id, locale: guild.preferredLocale, features: [] },
          guild_locale: guild.preferredLocale,
          context: 0,
          authorizing_integration_owners: { '0': guild.id },
        }),
    channel: channelPayload(world, channel),
    channel_id: channel.id,
    ...who,
    app_permissions: world.permissionsIn(channel, world.bot.userId).toString(),
    locale: input.locale,
    entitlements: [],
    attachment_size_limit: DISCORD_LIMITS.uploadBytes,
    ...(input.message === undefined ? {} : { message: input.message }),
  } as unknown as APIInteraction;
}
