import { ChannelType, GatewayIntentBits } from 'discord-api-types/v10';
import { guildCreatePayload } from '../payloads/guild-payloads.ts';
import { memberPayload, rolePayload } from '../payloads/user-payloads.ts';
import { permissionBits } from '../rules/permissions.ts';
import type {
  ChannelRecord,
  GuildRecord,
  MemberRecord,
  OverwriteRecord,
  RoleRecord,
  UserRecord,
} from '../state/records.ts';
import { dispatchChannelEvent } from './channel-events.ts';
import type { FakeDiscordContext } from './fake-discord-context.ts';

/** What a new server's @everyone role holds (Discord's defaults, MENTION_EVERYONE included). */
export const DEFAULT_EVERYONE_PERMISSIONS = permissionBits([
  'CreateInstantInvite',
  'ChangeNickname',
  'ViewChannel',
  'SendMessages',
  'SendMessagesInThreads',
  'CreatePublicThreads',
  'CreatePrivateThreads',
  'EmbedLinks',
  'AttachFiles',
  'AddReactions',
  'UseExternalEmojis',
  'UseExternalStickers',
  'MentionEveryone',
  'ReadMessageHistory',
  'Connect',
  'Speak',
  'Stream',
  'UseVAD',
  'UseApplicationCommands',
  'RequestToSpeak',
  'UseEmbeddedActivities',
  'SendVoiceMessages',
  'SendPolls',
  'UseExternalApps',
]);

/** What the bot's managed role gets when an invite asks for a typical chat bot's permissions. */
export const DEFAULT_BOT_PERMISSIONS = permissionBits([
  'ViewChannel',
  'SendMessages',
  'SendMessagesInThreads',
  'EmbedLinks',
  'AttachFiles',
  'ReadMessageHistory',
  'AddReactions',
  'UseExternalEmojis',
]);

export type GuildChannelKind = 'text' | 'announcement' | 'voice' | 'forum' | 'category';

const CHANNEL_TYPES: Record<GuildChannelKind, ChannelType> = {
  text: ChannelType.GuildText,
  announcement: ChannelType.GuildAnnouncement,
  voice: ChannelType.GuildVoice,
  forum: ChannelType.GuildForum,
  category: ChannelType.GuildCategory,
};

/**
 * Creates and changes the world (users, guilds, roles, members, channels, threads, DMs) and
 * tells connected sessions what Discord would: GUILD_CREATE when the bot joins, CHANNEL_CREATE,
 * THREAD_CREATE, GUILD_ROLE_*, GUILD_MEMBER_*.
 */
export class WorldBuilder {
  readonly #context: FakeDiscordContext;

  constructor(context: FakeDiscordContext) {
    this.#context = context;
  }

  createUser(
    options: {
      username?: string;
      globalName?: string;
      bot?: boolean;
      acceptsDirectMessages?: boolean;
    } = {},
  ): UserRecord {
    const { world } = this.#context;
    const id = world.ids.next();
    const user: UserRecord = {
      id,
      username: options.username ?? `user${world.users.size}`,
      globalName: options.globalName ?? null,
      bot: options.bot ?? false,
      avatar: null,
      acceptsDirectMessages: options.acceptsDirectMessages ?? true,
    };
    world.users.set(id, user);
    return user;
  }

  createGuild(
    options: {
      name?: string;
      ownerId?: string;
      preferredLocale?: string;
      everyonePermissions?: bigint;
      botPermissions?: bigint;
      withBot?: boolean;
    } = {},
  ): GuildRecord {
    const { world } = this.#context;
    const id = world.ids.next();
    const ownerId = options.ownerId ?? this.createUser({ username: 'owner' }).id;
    const guild: GuildRecord = {
      id,
      name: options.name ?? `Guild ${world.guilds.size + 1}`,
      ownerId,
      preferredLocale: options.preferredLocale ?? 'en-US',
      createdAt: world.clock.now(),
      roles: new Map(),
      members: new Map(),
      emojis: [],
      stickers: [],
      channelIds: [],
    };
    guild.roles.set(
      id,
      this.#role(guild, {
        id,
        name: '@everyone',
        permissions: options.everyonePermissions ?? DEFAULT_EVERYONE_PERMISSIONS,
      }),
    );
    world.guilds.set(id, guild);
    this.#addMemberRecord(guild, ownerId, []);
    if (options.withBot ?? true)
      this.addBot(guild.id, options.botPermissions ?? DEFAULT_BOT_PERMISSIONS);
    return guild;
  }

  /** The bot joins: a managed role with `permissions`, then GUILD_CREATE to live sessions. */
  addBot(guildId: string, permissions: bigint): RoleRecord {
    const { world } = this.#context;
    const guild = world.guild(guildId);
    const role = this.#role(guild, {
      name: world.user(world.bot.userId).username,
      permissions,
      managedByBotId: world.bot.userId,
    });
    guild.roles.set(role.id, role);
    this.#addMemberRecord(guild, world.bot.userId, [role.id]);
    this.#context.gateway.dispatch({
      type: 'GUILD_CREATE',
      intent: GatewayIntentBits.Guilds,
      build: (session) =>
        guildCreatePayload(world, guild, {
          allMembers: (session.intents & GatewayIntentBits.GuildMembers) !== 0,
        }),
    });
    return role;
  }

  createRole(options: {
    guildId: string;
    name: string;
    permissions?: bigint;
    mentionable?: boolean;
    color?: number;
  }): RoleRecord {
    const guild = this.#context.world.guild(options.guildId);
    const role = this.#role(guild, {
      name: options.name,
      permissions: options.permissions ?? 0n,
      mentionable: options.mentionable ?? false,
      color: options.color ?? 0,
    });
    guild.roles.set(role.id, role);
    this.#dispatchGuild('GUILD_ROLE_CREATE', guild, {
      guild_id: guild.id,
      role: rolePayload(role),
    });
    return role;
  }

  /** Changes a role's permissions (GUILD_ROLE_UPDATE). */
  setRolePermissions(guildId: string, roleId: string, permissions: bigint): void {
    const guild = this.#context.world.guild(guildId);
    const role = guild.roles.get(roleId);
    if (role === undefined) throw new Error(`role ${roleId} is not in guild ${guildId}`);
    role.permissions = permissions;
    this.#dispatchGuild('GUILD_ROLE_UPDATE', guild, {
      guild_id: guild.id,
      role: rolePayload(role),
    });
  }

  addMember(options: {
    guildId: string;
    userId: string;
    roleIds?: string[];
    nick?: string;
  }): MemberRecord {
    const guild = this.#context.world.guild(options.guildId);
    const member = this.#addMemberRecord(
      guild,
      options.userId,
      options.roleIds ?? [],
      options.nick,
    );
    this.#dispatchMember('GUILD_MEMBER_ADD', guild, member);
    return member;
  }

  updateMember(options: {
    guildId: string;
    userId: string;
    roleIds?: string[];
    timedOutUntil?: number | null;
    nick?: string | null;
  }): MemberRecord {
    const { world } = this.#context;
    const guild = world.guild(options.guildId);
    const member = guild.members.get(options.userId);
    if (member === undefined)
      throw new Error(`user ${options.userId} is not in guild ${options.guildId}`);
    if (options.roleIds !== undefined) member.roleIds = [...options.roleIds];
    if (options.timedOutUntil !== undefined) member.timedOutUntil = options.timedOutUntil;
    if (options.nick !== undefined) member.nick = options.nick;
    this.#dispatchMember('GUILD_MEMBER_UPDATE', guild, member);
    return member;
  }

  createChannel(options: {
    guildId: string;
    name: string;
    kind?: GuildChannelKind;
    parentId?: string;
    topic?: string;
    nsfw?: boolean;
    overwrites?: OverwriteRecord[];
    availableTags?: { id?: string; name: string }[];
  }): ChannelRecord {
    const { world } = this.#context;
    const guild = world.guild(options.guildId);
    const channel = this.#channel({
      type: CHANNEL_TYPES[options.kind ?? 'text'],
      guildId: guild.id,
      name: options.name,
      parentId: options.parentId ?? null,
      topic: options.topic ?? null,
      nsfw: options.nsfw ?? false,
      overwrites: options.overwrites ?? [],
    });
    channel.availableTags = (options.availableTags ?? []).map((tag) => ({
      id: tag.id ?? world.ids.next(),
      name: tag.name,
      moderated: false,
      emoji_id: null,
      emoji_name: null,
    }));
    guild.channelIds.push(channel.id);
    dispatchChannelEvent(this.#context, 'create', channel);
    return channel;
  }

  /** Sets (or with neither bit, removes) a permission overwrite (CHANNEL_UPDATE). */
  setOverwrite(options: {
    channelId: string;
    targetId: string;
    type: 'role' | 'member';
    allow?: bigint;
    deny?: bigint;
  }): void {
    const channel = this.#context.world.channel(options.channelId);
    channel.overwrites = channel.overwrites.filter(
      (overwrite) => overwrite.id !== options.targetId,
    );
    const allow = options.allow ?? 0n;
    const deny = options.deny ?? 0n;
    if (allow !== 0n || deny !== 0n) {
      channel.overwrites.push({
        id: options.targetId,
        type: options.type === 'role' ? 0 : 1,
        allow,
        deny,
      });
    }
    dispatchChannelEvent(this.#context, 'update', channel);
  }

  createThread(options: {
    parentId: string;
    name: string;
    /** Threads started from a message share that message's id. */
    id?: string;
    ownerId: string;
    kind?: 'public' | 'private' | 'announcement';
    memberIds?: string[];
    locked?: boolean;
    archived?: boolean;
    invitable?: boolean;
    appliedTags?: string[];
  }): ChannelRecord {
    const { world } = this.#context;
    const parent = world.channel(options.parentId);
    if (parent.guildId === null) throw new Error('threads live in guild channels');
    const kind = options.kind ?? 'public';
    const channel = this.#channel({
      type:
        kind === 'private'
          ? ChannelType.PrivateThread
          : kind === 'announcement'
            ? ChannelType.AnnouncementThread
            : ChannelType.PublicThread,
      guildId: parent.guildId,
      name: options.name,
      parentId: parent.id,
      topic: null,
      nsfw: parent.nsfw,
      overwrites: [],
      ...(options.id === undefined ? {} : { id: options.id }),
    });
    channel.thread = {
      ownerId: options.ownerId,
      archived: options.archived ?? false,
      locked: options.locked ?? false,
      invitable: options.invitable ?? true,
      autoArchiveDuration: 1440,
      createdAt: world.clock.now(),
      memberIds: new Set([options.ownerId, ...(options.memberIds ?? [])]),
      appliedTags: options.appliedTags ?? [],
    };
    world.guild(parent.guildId).channelIds.push(channel.id);
    dispatchChannelEvent(this.#context, 'create', channel);
    return channel;
  }

  /** The DM channel between the bot and a user (created once, reused after). */
  openDirectMessage(userId: string): ChannelRecord {
    const { world } = this.#context;
    world.user(userId);
    const existing = world.directMessageChannel(userId);
    if (existing !== undefined) return existing;
    const channel = this.#channel({
      type: ChannelType.DM,
      guildId: null,
      name: null,
      parentId: null,
      topic: null,
      nsfw: false,
      overwrites: [],
    });
    channel.recipientIds = [userId];
    dispatchChannelEvent(this.#context, 'create', channel);
    return channel;
  }

  addEmoji(options: { guildId: string; name: string; animated?: boolean }): {
    id: string;
    name: string;
  } {
    const { world } = this.#context;
    const guild = world.guild(options.guildId);
    const emoji = { id: world.ids.next(), name: options.name, animated: options.animated ?? false };
    guild.emojis.push(emoji);
    return emoji;
  }

  addSticker(options: { guildId: string; name: string; description?: string; tags?: string }): {
    id: string;
    name: string;
  } {
    const { world } = this.#context;
    const guild = world.guild(options.guildId);
    const sticker = {
      id: world.ids.next(),
      name: options.name,
      description: options.description ?? '',
      tags: options.tags ?? options.name,
    };
    guild.stickers.push(sticker);
    return sticker;
  }

  #role(
    guild: GuildRecord,
    options: Partial<RoleRecord> & { name: string; permissions: bigint },
  ): RoleRecord {
    return {
      id: options.id ?? this.#context.world.ids.next(),
      guildId: guild.id,
      name: options.name,
      permissions: options.permissions,
      position: guild.roles.size,
      color: options.color ?? 0,
      hoist: false,
      mentionable: options.mentionable ?? false,
      managedByBotId: options.managedByBotId ?? null,
    };
  }

  #addMemberRecord(
    guild: GuildRecord,
    userId: string,
    roleIds: string[],
    nick?: string,
  ): MemberRecord {
    const { world } = this.#context;
    world.user(userId);
    const member: MemberRecord = {
      guildId: guild.id,
      userId,
      roleIds: [...roleIds],
      nick: nick ?? null,
      joinedAt: world.clock.now(),
      timedOutUntil: null,
    };
    guild.members.set(userId, member);
    return member;
  }

  #channel(
    fields: Pick<
      ChannelRecord,
      'type' | 'guildId' | 'name' | 'parentId' | 'topic' | 'nsfw' | 'overwrites'
    > & {
      id?: string;
    },
  ): ChannelRecord {
    const { world } = this.#context;
    const channel: ChannelRecord = {
      ...fields,
      id: fields.id ?? world.ids.next(),
      position: fields.guildId === null ? 0 : world.guild(fields.guildId).channelIds.length,
      rateLimitPerUser: 0,
      recipientIds: [],
      thread: null,
      availableTags: [],
      messageIds: [],
      lastMessageId: null,
      messagesSent: 0,
    };
    world.channels.set(channel.id, channel);
    return channel;
  }

  #dispatchGuild(type: string, guild: GuildRecord, data: unknown): void {
    if (!guild.members.has(this.#context.world.bot.userId)) return;
    this.#context.gateway.dispatch({ type, intent: GatewayIntentBits.Guilds, build: () => data });
  }

  #dispatchMember(type: string, guild: GuildRecord, member: MemberRecord): void {
    const { world } = this.#context;
    if (!guild.members.has(world.bot.userId)) return;
    const payload = { ...memberPayload(member, world.user(member.userId)), guild_id: guild.id };
    const self = member.userId === world.bot.userId;
    // The bot hears about its own member without the privileged GUILD_MEMBERS intent.
    this.#context.gateway.dispatch({
      type,
      intent: self ? null : GatewayIntentBits.GuildMembers,
      build: () => payload,
    });
  }
}
