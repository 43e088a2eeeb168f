import { ChannelType, PermissionFlagsBits as Permission } from 'discord-api-types/v10';
import { describe, expect, it } from 'vitest';
import type {
  ChannelRecord,
  GuildRecord,
  MemberRecord,
  OverwriteRecord,
} from '../state/records.ts';
import { ALL_PERMISSIONS, channelPermissions, hasPermission } from './permissions.ts';

const GUILD = '100000000000000001';
const OWNER = '200000000000000001';
const MEMBER = '200000000000000002';
const MODERATORS = '300000000000000001';
const MUTED = '300000000000000002';
const ADMINS = '300000000000000003';
const NOW = 1_800_000_000_000;

function guild(everyone: bigint): GuildRecord {
  const role = (id: string, permissions: bigint) => ({
    id,
    guildId: GUILD,
    name: id,
    permissions,
    position: 0,
    color: 0,
    hoist: false,
    mentionable: false,
    managedByBotId: null,
  });
  return {
    id: GUILD,
    name: 'g',
    ownerId: OWNER,
    preferredLocale: 'en-US',
    createdAt: 0,
    roles: new Map([
      [GUILD, role(GUILD, everyone)],
      [MODERATORS, role(MODERATORS, Permission.ManageMessages)],
      [MUTED, role(MUTED, 0n)],
      [ADMINS, role(ADMINS, Permission.Administrator)],
    ]),
    members: new Map(),
    emojis: [],
    stickers: [],
    channelIds: [],
  };
}

function member(
  roleIds: string[] = [],
  timedOutUntil: number | null = null,
  userId = MEMBER,
): MemberRecord {
  return { guildId: GUILD, userId, roleIds, nick: null, joinedAt: 0, timedOutUntil };
}

function channel(overwrites: OverwriteRecord[] = [], type = ChannelType.GuildText): ChannelRecord {
  return {
    id: '400000000000000001',
    type,
    guildId: GUILD,
    name: 'c',
    parentId: null,
    position: 0,
    topic: null,
    nsfw: false,
    rateLimitPerUser: 0,
    overwrites,
    recipientIds: [],
    thread: null,
    availableTags: [],
    messageIds: [],
    lastMessageId: null,
    messagesSent: 0,
  };
}

const BASIC =
  Permission.ViewChannel |
  Permission.SendMessages |
  Permission.EmbedLinks |
  Permission.MentionEveryone |
  Permission.SendMessagesInThreads;

function permissions(input: {
  everyone?: bigint;
  member?: MemberRecord;
  channel?: ChannelRecord;
  parent?: ChannelRecord;
}): bigint {
  return channelPermissions({
    guild: guild(input.everyone ?? BASIC),
    channel: input.channel ?? channel(),
    parent: input.parent,
    member: input.member ?? member(),
    now: NOW,
  });
}

describe('channel permissions', () => {
  it('gives the owner and administrators everything, whatever the overwrites', () => {
    const denyAll = channel([{ id: GUILD, type: 0, allow: 0n, deny: ALL_PERMISSIONS }]);
    expect(permissions({ member: member([], null, OWNER), channel: denyAll })).toBe(
      ALL_PERMISSIONS,
    );
    expect(permissions({ member: member([ADMINS]), channel: denyAll })).toBe(ALL_PERMISSIONS);
  });

  it('applies @everyone, then role overwrites (deny before allow), then the member overwrite', () => {
    const overwrites: OverwriteRecord[] = [
      { id: GUILD, type: 0, allow: 0n, deny: Permission.SendMessages },
      { id: MODERATORS, type: 0, allow: Permission.SendMessages, deny: 0n },
      { id: MUTED, type: 0, allow: 0n, deny: Permission.SendMessages },
    ];
    expect(
      hasPermission(permissions({ channel: channel(overwrites) }), Permission.SendMessages),
    ).toBe(false);
    expect(
      hasPermission(
        permissions({ channel: channel(overwrites), member: member([MODERATORS]) }),
        Permission.SendMessages,
      ),
    ).toBe(true);
    // Role allows win over role denies at the same level.
    expect(
      hasPermission(
        permissions({ channel: channel(overwrites), member: member([MODERATORS, MUTED]) }),
        Permission.SendMessages,
      ),
    ).toBe(true);
    const personal = [
      ...overwrites,
      { id: MEMBER, type: 1 as const, allow: 0n, deny: Permission.SendMessages },
    ];
    expect(
      hasPermission(
        permissions({ channel: channel(personal), member: member([MODERATORS]) }),
        Permission.SendMessages,
      ),
    ).toBe(false);
  });

  it('grants nothing without VIEW_CHANNEL', () => {
    const hidden = channel([{ id: GUILD, type: 0, allow: 0n, deny: Permission.ViewChannel }]);
    expect(permissions({ channel: hidden })).toBe(0n);
  });

  it('drops mention-everyone, embeds, attachments and TTS with SEND_MESSAGES', () => {
    const readOnly = channel([{ id: GUILD, type: 0, allow: 0n, deny: Permission.SendMessages }]);
    const result = permissions({ channel: readOnly });
    expect(hasPermission(result, Permission.ViewChannel)).toBe(true);
    expect(hasPermission(result, Permission.MentionEveryone)).toBe(false);
    expect(hasPermission(result, Permission.EmbedLinks)).toBe(false);
  });

  it('lets threads inherit the parent overwrites and use SEND_MESSAGES_IN_THREADS', () => {
    const parent = channel([
      { id: GUILD, type: 0, allow: 0n, deny: Permission.SendMessagesInThreads },
    ]);
    const thread = {
      ...channel([], ChannelType.PublicThread),
      parentId: parent.id,
      thread: threadOf([]),
    };
    const result = permissions({ channel: thread, parent });
    expect(hasPermission(result, Permission.SendMessagesInThreads)).toBe(false);
    expect(hasPermission(result, Permission.MentionEveryone)).toBe(false);
  });

  it('hides a private thread from non-members without MANAGE_THREADS', () => {
    const parent = channel();
    const thread = {
      ...channel([], ChannelType.PrivateThread),
      parentId: parent.id,
      thread: threadOf([OWNER]),
    };
    expect(permissions({ channel: thread, parent })).toBe(0n);
    const joined = { ...thread, thread: threadOf([MEMBER]) };
    expect(hasPermission(permissions({ channel: joined, parent }), Permission.ViewChannel)).toBe(
      true,
    );
    expect(
      hasPermission(
        permissions({ channel: thread, parent, everyone: BASIC | Permission.ManageThreads }),
        Permission.ViewChannel,
      ),
    ).toBe(true);
  });

  it('leaves a timed-out member only viewing and reading history', () => {
    const result = permissions({
      everyone: BASIC | Permission.ReadMessageHistory,
      member: member([], NOW + 60_000),
    });
    expect(result).toBe(Permission.ViewChannel | Permission.ReadMessageHistory);
    expect(permissions({ member: member([], NOW - 1) })).toBe(BASIC);
  });
});

function threadOf(memberIds: string[]): ChannelRecord['thread'] {
  return {
    ownerId: OWNER,
    archived: false,
    locked: false,
    invitable: true,
    autoArchiveDuration: 1440,
    createdAt: 0,
    memberIds: new Set(memberIds),
    appliedTags: [],
  };
}
