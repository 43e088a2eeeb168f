import { GatewayIntentBits } from 'discord-api-types/v10';
import type { RouteDefinition } from '../http/router.ts';
import { channelPayload } from '../payloads/channel-payloads.ts';
import { emojiPayload, guildPayload, stickerPayload } from '../payloads/guild-payloads.ts';
import { memberPayload, rolePayload, userPayload } from '../payloads/user-payloads.ts';
import { applicationFlagsFor } from '../gateway/intents.ts';
import { DiscordApiError } from '../rules/discord-error.ts';
import { isThread } from '../rules/permissions.ts';
import type { FakeDiscordContext } from '../services/fake-discord-context.ts';
import type { ChannelBuilder } from '../services/channel-builder.ts';
import { botGuild, botRoute, json, objectBody } from './route-helpers.ts';

/**
 * The gateway URL, the bot's identity (`users/@me`, `applications/@me`), users, DM channel
 * creation, and read-only guild routes (guild, channels, roles, members, emojis, stickers).
 */
export function identityRoutes(
  context: FakeDiscordContext,
  services: { channels: ChannelBuilder; identifies: () => number },
): RouteDefinition[] {
  const { world } = context;
  const gatewayUrl = () => `${context.payloads.origin.replace(/^http/, 'ws')}/gateway`;
  const application = () => ({
    id: world.bot.applicationId,
    name: world.user(world.bot.userId).username,
    icon: null,
    description: '',
    bot_public: true,
    bot_require_code_grant: false,
    verify_key: '0'.repeat(64),
    flags: applicationFlagsFor(world.bot.privilegedIntents),
    team: null,
    bot: userPayload(world.user(world.bot.userId)),
    approximate_guild_count: world.botGuilds().length,
    install_params: { scopes: ['bot', 'applications.commands'], permissions: '0' },
    integration_types_config: { '0': {} },
  });

  return [
    {
      method: 'GET',
      pattern: '/gateway',
      auth: 'none',
      globalLimit: true,
      handle: () => json({ url: gatewayUrl() }),
    },
    botRoute('GET', '/gateway/bot', () =>
      json({
        url: gatewayUrl(),
        shards: context.options.recommendedShards,
        session_start_limit: {
          total: 1000,
          remaining: Math.max(0, 1000 - services.identifies()),
          reset_after: 86_400_000,
          max_concurrency: context.options.maxConcurrency,
        },
      }),
    ),
    botRoute('GET', '/users/@me', () =>
      json({
        ...userPayload(world.user(world.bot.userId)),
        verified: true,
        mfa_enabled: false,
        locale: 'en-US',
      }),
    ),
    botRoute('GET', '/users/:userId', (request) =>
      json(userPayload(world.user(request.params.userId ?? ''))),
    ),
    botRoute('GET', '/applications/@me', () => json(application())),
    botRoute('GET', '/oauth2/applications/@me', () => json(application())),
    botRoute('POST', '/users/@me/channels', (request) => {
      const recipientId = objectBody(request).recipient_id;
      if (typeof recipientId !== 'string' || !world.users.has(recipientId))
        throw DiscordApiError.unknown('User');
      return json(channelPayload(world, services.channels.openDirectMessage(recipientId)));
    }),
    botRoute('GET', '/guilds/:guildId', (request) =>
      json(guildPayload(world, botGuild(context, request.params.guildId ?? ''))),
    ),
    botRoute('GET', '/guilds/:guildId/channels', (request) => {
      const guild = botGuild(context, request.params.guildId ?? '');
      return json(
        guild.channelIds
          .map((id) => world.channel(id))
          .filter((channel) => !isThread(channel))
          .map((channel) => channelPayload(world, channel)),
      );
    }),
    botRoute('GET', '/guilds/:guildId/roles', (request) =>
      json([...botGuild(context, request.params.guildId ?? '').roles.values()].map(rolePayload)),
    ),
    botRoute('GET', '/guilds/:guildId/members/:userId', (request) => {
      const guild = botGuild(context, request.params.guildId ?? '');
      const member = guild.members.get(request.params.userId ?? '');
      if (member === undefined) throw DiscordApiError.unknown('Member');
      return json(memberPayload(member, world.user(member.userId)));
    }),
    botRoute('GET', '/guilds/:guildId/members', (request) => {
      // Listing members needs the privileged intent enabled in the portal.
      if ((world.bot.privilegedIntents & GatewayIntentBits.GuildMembers) === 0)
        throw DiscordApiError.missingAccess();
      const guild = botGuild(context, request.params.guildId ?? '');
      const limit = Math.min(1000, Number(request.query.get('limit') ?? '1'));
      const after = BigInt(request.query.get('after') ?? '0');
      const members = [...guild.members.values()]
        .filter((member) => BigInt(member.userId) > after)
        .sort((left, right) => (BigInt(left.userId) < BigInt(right.userId) ? -1 : 1))
        .slice(0, limit);
      return json(members.map((member) => memberPayload(member, world.user(member.userId))));
    }),
    botRoute('GET', '/guilds/:guildId/emojis', (request) =>
      json(botGuild(context, request.params.guildId ?? '').emojis.map(emojiPayload)),
    ),
    botRoute('GET', '/guilds/:guildId/emojis/:emojiId', (request) => {
      const emoji = botGuild(context, request.params.guildId ?? '').emojis.find(
        (item) => item.id === request.params.emojiId,
      );
      if (emoji === undefined) throw DiscordApiError.unknown('Emoji');
      return json(emojiPayload(emoji));
    }),
    botRoute('GET', '/guilds/:guildId/stickers', (request) => {
      const guild = botGuild(context, request.params.guildId ?? '');
      return json(guild.stickers.map((sticker) => stickerPayload(guild.id, sticker)));
    }),
    botRoute('GET', '/guilds/:guildId/stickers/:stickerId', (request) => {
      const guild = botGuild(context, request.params.guildId ?? '');
      const sticker = guild.stickers.find((item) => item.id === request.params.stickerId);
      if (sticker === undefined)
        throw new DiscordApiError({ status: 404, code: 10060, message: 'Unknown sticker' });
      return json(stickerPayload(guild.id, sticker));
    }),
    botRoute('GET', '/stickers/:stickerId', (request) => {
      for (const guild of world.guilds.values()) {
        const sticker = guild.stickers.find((item) => item.id === request.params.stickerId);
        if (sticker !== undefined) return json(stickerPayload(guild.id, sticker));
      }
      throw new DiscordApiError({ status: 404, code: 10060, message: 'Unknown sticker' });
    }),
  ];
}
