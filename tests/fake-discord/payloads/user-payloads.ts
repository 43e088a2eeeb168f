import type { APIGuildMember, APIRole, APIUser } from 'discord-api-types/v10';
import type { MemberRecord, RoleRecord, UserRecord } from '../state/records.ts';

/**
 * An empty flags bitfield. discord-api-types types flags as enums, which have no zero member;
 * Discord sends 0 on the wire.
 */
export const NO_FLAGS = 0 as never;

export function userPayload(user: UserRecord): APIUser {
  return {
    id: user.id,
    username: user.username,
    discriminator: '0',
    global_name: user.globalName,
    avatar: user.avatar,
    ...(user.bot ? { bot: true } : {}),
    public_flags: NO_FLAGS,
    flags: NO_FLAGS,
    banner: null,
    accent_color: null,
    avatar_decoration_data: null,
    collectibles: null,
    primary_guild: null,
  };
}

/** A member with its user (`withUser: false` for `mentions[].member` and message `member`). */
export function memberPayload(member: MemberRecord, user: UserRecord): APIGuildMember {
  return { ...memberWithoutUser(member), user: userPayload(user) };
}

export function memberWithoutUser(member: MemberRecord): Omit<APIGuildMember, 'user'> {
  return {
    nick: member.nick,
    avatar: null,
    banner: null,
    roles: [...member.roleIds],
    joined_at: new Date(member.joinedAt).toISOString(),
    premium_since: null,
    deaf: false,
    mute: false,
    flags: NO_FLAGS,
    pending: false,
    communication_disabled_until:
      member.timedOutUntil === null ? null : new Date(member.timedOutUntil).toISOString(),
  };
}

/** Permissions travel as decimal strings: they exceed 2^53. */
export function rolePayload(role: RoleRecord): APIRole {
  return {
    id: role.id,
    name: role.name,
    color: role.color,
    colors: { primary_color: role.color, secondary_color: null, tertiary_color: null },
    hoist: role.hoist,
    icon: null,
    unicode_emoji: null,
    position: role.position,
    permissions: role.permissions.toString(),
    managed: role.managedByBotId !== null,
    mentionable: role.mentionable,
    flags: NO_FLAGS,
    ...(role.managedByBotId === null ? {} : { tags: { bot_id: role.managedByBotId } }),
  };
}
