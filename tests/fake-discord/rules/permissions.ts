import { ChannelType, PermissionFlagsBits } from 'discord-api-types/v10';
import type { ChannelRecord, GuildRecord, MemberRecord } from '../state/records.ts';

/** Every permission bit Discord defines (what an administrator or the owner holds). */
export const ALL_PERMISSIONS = Object.values(PermissionFlagsBits).reduce(
  (all, bit) => all | bit,
  0n,
);

/**
 * What `app_permissions` reports in a DM with the bot: Discord documents ATTACH_FILES |
 * EMBED_LINKS | MENTION_EVERYONE | USE_EXTERNAL_EMOJIS on top of the basics.
 */
export const DIRECT_MESSAGE_PERMISSIONS =
  PermissionFlagsBits.ViewChannel |
  PermissionFlagsBits.SendMessages |
  PermissionFlagsBits.ReadMessageHistory |
  PermissionFlagsBits.AddReactions |
  PermissionFlagsBits.EmbedLinks |
  PermissionFlagsBits.AttachFiles |
  PermissionFlagsBits.MentionEveryone |
  PermissionFlagsBits.UseExternalEmojis;

/** Lost together with SEND_MESSAGES (Discord's implicit permissions). */
const IMPLIED_BY_SEND =
  PermissionFlagsBits.MentionEveryone |
  PermissionFlagsBits.SendTTSMessages |
  PermissionFlagsBits.AttachFiles |
  PermissionFlagsBits.EmbedLinks;

/** A timed-out member keeps only these. */
const TIMEOUT_ALLOWED = PermissionFlagsBits.ViewChannel | PermissionFlagsBits.ReadMessageHistory;

export function isThread(channel: ChannelRecord): boolean {
  return (
    channel.type === ChannelType.PublicThread ||
    channel.type === ChannelType.PrivateThread ||
    channel.type === ChannelType.AnnouncementThread
  );
}

/** The guild-wide permissions of a member: owner, @everyone, roles, ADMINISTRATOR. */
export function basePermissions(guild: GuildRecord, member: MemberRecord): bigint {
  if (guild.ownerId === member.userId) return ALL_PERMISSIONS;
  let permissions = guild.roles.get(guild.id)?.permissions ?? 0n;
  for (const roleId of member.roleIds) permissions |= guild.roles.get(roleId)?.permissions ?? 0n;
  if ((permissions & PermissionFlagsBits.Administrator) !== 0n) return ALL_PERMISSIONS;
  return permissions;
}

export interface ChannelPermissionInput {
  guild: GuildRecord;
  channel: ChannelRecord;
  /** The thread's parent (threads inherit the parent's overwrites); undefined otherwise. */
  parent: ChannelRecord | undefined;
  member: MemberRecord;
  now: number;
}

/**
 * A member's permissions in a guild channel, following Discord's documented algorithm: base
 * permissions, then the @everyone overwrite, the union of role overwrites (deny then allow), the
 * member overwrite; then the implicit rules (no VIEW_CHANNEL → nothing; no SEND_MESSAGES → no
 * mention-everyone/TTS/attach/embed), private threads (member or MANAGE_THREADS), and timeouts.
 */
export function channelPermissions(input: ChannelPermissionInput): bigint {
  const { guild, channel, parent, member, now } = input;
  const base = basePermissions(guild, member);
  if (base === ALL_PERMISSIONS) return ALL_PERMISSIONS;

  const source = isThread(channel) && parent !== undefined ? parent : channel;
  let permissions = applyOverwrites(base, source, guild, member);

  if ((permissions & PermissionFlagsBits.ViewChannel) === 0n) return 0n;
  const sendBit = isThread(channel)
    ? PermissionFlagsBits.SendMessagesInThreads
    : PermissionFlagsBits.SendMessages;
  if ((permissions & sendBit) === 0n) permissions &= ~IMPLIED_BY_SEND;

  if (channel.type === ChannelType.PrivateThread && channel.thread !== null) {
    const canSeeAll = (permissions & PermissionFlagsBits.ManageThreads) !== 0n;
    if (!canSeeAll && !channel.thread.memberIds.has(member.userId)) return 0n;
  }
  if (member.timedOutUntil !== null && member.timedOutUntil > now) {
    permissions &= TIMEOUT_ALLOWED;
  }
  return permissions;
}

function applyOverwrites(
  base: bigint,
  channel: ChannelRecord,
  guild: GuildRecord,
  member: MemberRecord,
): bigint {
  let permissions = base;
  const everyone = channel.overwrites.find((overwrite) => overwrite.id === guild.id);
  if (everyone !== undefined) {
    permissions &= ~everyone.deny;
    permissions |= everyone.allow;
  }
  let roleAllow = 0n;
  let roleDeny = 0n;
  for (const overwrite of channel.overwrites) {
    if (overwrite.type === 0 && member.roleIds.includes(overwrite.id)) {
      roleAllow |= overwrite.allow;
      roleDeny |= overwrite.deny;
    }
  }
  permissions &= ~roleDeny;
  permissions |= roleAllow;
  const own = channel.overwrites.find(
    (overwrite) => overwrite.type === 1 && overwrite.id === member.userId,
  );
  if (own !== undefined) {
    permissions &= ~own.deny;
    permissions |= own.allow;
  }
  return permissions;
}

/** The bit needed to post in this channel: SEND_MESSAGES_IN_THREADS in threads. */
export function sendPermissionFor(channel: ChannelRecord): bigint {
  return isThread(channel)
    ? PermissionFlagsBits.SendMessagesInThreads
    : PermissionFlagsBits.SendMessages;
}

export function hasPermission(permissions: bigint, bit: bigint): boolean {
  return (permissions & bit) === bit;
}

/** Several flags (bigint or their names) as one bitfield. */
export function permissionBits(
  permissions: readonly (bigint | keyof typeof PermissionFlagsBits)[],
): bigint {
  return permissions.reduce<bigint>(
    (all, permission) =>
      all | (typeof permission === 'bigint' ? permission : PermissionFlagsBits[permission]),
    0n,
  );
}
