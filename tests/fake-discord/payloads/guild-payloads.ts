import {
  PermissionFlagsBits,
  type APIEmoji,
  type APIGuild,
  type APISticker,
  type GatewayGuildCreateDispatchData,
} from 'discord-api-types/v10';
import { hasPermission, isThread } from '../rules/permissions.ts';
import type { EmojiRecord, GuildRecord, StickerRecord } from '../state/records.ts';
import type { World } from '../state/world.ts';
import { channelPayload } from './channel-payloads.ts';
import { memberPayload, NO_FLAGS, rolePayload } from './user-payloads.ts';

/** The guild object (REST `GET /guilds/:id`). */
export function guildPayload(world: World, guild: GuildRecord): APIGuild {
  return {
    id: guild.id,
    name: guild.name,
    icon: null,
    icon_hash: null,
    splash: null,
    discovery_splash: null,
    owner_id: guild.ownerId,
    region: null,
    afk_channel_id: null,
    afk_timeout: 300,
    widget_enabled: false,
    widget_channel_id: null,
    verification_level: 0,
    default_message_notifications: 1,
    explicit_content_filter: 0,
    roles: [...guild.roles.values()].map(rolePayload),
    emojis: guild.emojis.map((emoji) => emojiPayload(emoji)),
    stickers: guild.stickers.map((sticker) => stickerPayload(guild.id, sticker)),
    features: [],
    mfa_level: 0,
    application_id: null,
    system_channel_id: null,
    system_channel_flags: NO_FLAGS,
    rules_channel_id: null,
    max_members: 500_000,
    vanity_url_code: null,
    description: null,
    banner: null,
    premium_tier: 0,
    premium_subscription_count: 0,
    preferred_locale: guild.preferredLocale as APIGuild['preferred_locale'],
    public_updates_channel_id: null,
    nsfw_level: 0,
    premium_progress_bar_enabled: false,
    hub_type: null,
    safety_alerts_channel_id: null,
    incidents_data: null,
  };
}

/**
 * GUILD_CREATE: the guild plus channels, active threads the bot can see, and members. Without
 * the privileged GUILD_MEMBERS intent Discord sends only the bot's own member.
 */
export function guildCreatePayload(
  world: World,
  guild: GuildRecord,
  options: { allMembers: boolean },
): GatewayGuildCreateDispatchData {
  const channels = guild.channelIds.map((id) => world.channel(id));
  const members = [...guild.members.values()].filter(
    (member) => options.allMembers || member.userId === world.bot.userId,
  );
  const botMember = guild.members.get(world.bot.userId);
  return {
    ...guildPayload(world, guild),
    joined_at: new Date(botMember?.joinedAt ?? guild.createdAt).toISOString(),
    large: guild.members.size > 250,
    unavailable: false,
    member_count: guild.members.size,
    voice_states: [],
    members: members.map((member) => memberPayload(member, world.user(member.userId))),
    channels: channels
      .filter((channel) => !isThread(channel))
      .map((channel) =>
        channelPayload(world, channel),
      ) as GatewayGuildCreateDispatchData['channels'],
    threads: channels
      .filter(
        (channel) =>
          isThread(channel) &&
          channel.thread?.archived === false &&
          hasPermission(
            world.permissionsIn(channel, world.bot.userId),
            PermissionFlagsBits.ViewChannel,
          ),
      )
      .map((channel) =>
        channelPayload(world, channel),
      ) as GatewayGuildCreateDispatchData['threads'],
    presences: [],
    stage_instances: [],
    guild_scheduled_events: [],
    soundboard_sounds: [],
  };
}

export function emojiPayload(emoji: EmojiRecord): APIEmoji {
  return {
    id: emoji.id,
    name: emoji.name,
    animated: emoji.animated,
    roles: [],
    require_colons: true,
    managed: false,
    available: true,
  };
}

/** A guild sticker (type 2 = GUILD, format 1 = PNG). */
export function stickerPayload(guildId: string, sticker: StickerRecord): APISticker {
  return {
    id: sticker.id,
    name: sticker.name,
    description: sticker.description,
    tags: sticker.tags,
    type: 2,
    format_type: 1,
    available: true,
    guild_id: guildId,
  };
}
