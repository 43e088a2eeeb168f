import { ChannelType, type APIChannel, type APIThreadMember } from 'discord-api-types/v10';
import { NO_FLAGS, userPayload } from './user-payloads.ts';
import { isThread } from '../rules/permissions.ts';
import type { ChannelRecord } from '../state/records.ts';
import type { World } from '../state/world.ts';

/**
 * A channel as API v10 describes it, per type: guild text/announcement/voice/forum/category,
 * threads with `thread_metadata`, and DMs with `recipients`. Overwrite bits are strings.
 */
export function channelPayload(world: World, channel: ChannelRecord): APIChannel {
  if (channel.type === ChannelType.DM) {
    return {
      id: channel.id,
      type: ChannelType.DM,
      name: null,
      last_message_id: channel.lastMessageId,
      recipients: channel.recipientIds.map((id) => userPayload(world.user(id))),
      flags: NO_FLAGS,
    } satisfies APIChannel;
  }
  const base = {
    id: channel.id,
    type: channel.type,
    guild_id: channel.guildId,
    name: channel.name,
    position: channel.position,
    parent_id: channel.parentId,
    nsfw: channel.nsfw,
    flags: NO_FLAGS,
    permission_overwrites: channel.overwrites.map((overwrite) => ({
      id: overwrite.id,
      type: overwrite.type,
      allow: overwrite.allow.toString(),
      deny: overwrite.deny.toString(),
    })),
  };
  if (channel.thread !== null && isThread(channel)) {
    const thread = channel.thread;
    const { permission_overwrites: _unused, position: _position, ...threadBase } = base;
    return {
      ...threadBase,
      owner_id: thread.ownerId,
      last_message_id: channel.lastMessageId,
      rate_limit_per_user: channel.rateLimitPerUser,
      message_count: channel.messageIds.length,
      member_count: Math.min(thread.memberIds.size, 50),
      total_message_sent: channel.messagesSent,
      applied_tags: [...thread.appliedTags],
      thread_metadata: {
        archived: thread.archived,
        auto_archive_duration: thread.autoArchiveDuration,
        archive_timestamp: new Date(thread.createdAt).toISOString(),
        locked: thread.locked,
        invitable: thread.invitable,
        create_timestamp: new Date(thread.createdAt).toISOString(),
      },
    } as APIChannel;
  }
  switch (channel.type) {
    case ChannelType.GuildCategory:
      return base as APIChannel;
    case ChannelType.GuildVoice:
    case ChannelType.GuildStageVoice:
      return {
        ...base,
        bitrate: 64_000,
        user_limit: 0,
        rtc_region: null,
        last_message_id: channel.lastMessageId,
        rate_limit_per_user: channel.rateLimitPerUser,
      } as APIChannel;
    case ChannelType.GuildForum:
    case ChannelType.GuildMedia:
      return {
        ...base,
        topic: channel.topic,
        last_message_id: channel.lastMessageId,
        rate_limit_per_user: channel.rateLimitPerUser,
        available_tags: channel.availableTags,
        default_reaction_emoji: null,
        default_sort_order: null,
        default_forum_layout: 0,
        default_thread_rate_limit_per_user: 0,
      } as APIChannel;
    case ChannelType.GuildText:
    case ChannelType.GuildAnnouncement:
    case ChannelType.GuildDirectory:
    case ChannelType.GroupDM:
    case ChannelType.PublicThread:
    case ChannelType.PrivateThread:
    case ChannelType.AnnouncementThread:
      return {
        ...base,
        topic: channel.topic,
        last_message_id: channel.lastMessageId,
        rate_limit_per_user: channel.rateLimitPerUser,
        default_auto_archive_duration: 1440,
      } as APIChannel;
  }
}

/** The bot's own membership of a thread (`member` on THREAD_CREATE / list results). */
export function threadMemberPayload(
  channel: ChannelRecord,
  membership: { userId: string; joinedAt: number },
): APIThreadMember {
  const { userId, joinedAt } = membership;
  return {
    id: channel.id,
    user_id: userId,
    join_timestamp: new Date(joinedAt).toISOString(),
    flags: NO_FLAGS,
  };
}
