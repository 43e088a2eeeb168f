import { GatewayIntentBits } from 'discord-api-types/v10';
import { guildCreatePayload } from '../payloads/guild-payloads.ts';
import { memberPayload, rolePayload } from '../payloads/user-payloads.ts';
import {
  DEFAULT_BOT_PERMISSIONS,
  DEFAULT_EVERYONE_PERMISSIONS,
} from '../rules/default-permissions.ts';
import type { GuildRecord, MemberRecord, RoleRecord, UserRecord } from '../state/records.ts';
import type { FakeDiscordContext } from './fake-discord-context.ts';

/**
 * Creates and changes users and guilds (roles, members, emojis, stickers, the bot joining) and
 * tells connected sessions what Discord would: GUILD_CREATE when the bot joins, GUILD_ROLE_*,
 * GUILD_MEMBER_*. Channels are the ChannelBuilder's.
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
      /**
       * `[shard_id, num_shards]`: an id that shard owns (`(id >> 22) % num_shards`). Default:
       * the next id, whichever shard owns it.
       */
      onShard?: readonly [number, number];
    } = {},
  ): GuildRecord {
    const { world } = this.#context;
    const id =
      options.onShard === undefined ? world.ids.next() : world.ids.nextOnShard(options.onShard);
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
      guildId: guild.id,
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
  setRolePermissions(options: { guildId: string; roleId: string; permissions: bigint }): void {
    const guild = this.#context.world.guild(options.guildId);
    const role = guild.roles.get(options.roleId);
    if (role === undefined)
      throw new Error(`role ${options.roleId} is not in guild ${options.guildId}`);
    role.permissions = options.permissions;
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

  #dispatchGuild(type: string, guild: GuildRecord, data: unknown): void {
    if (!guild.members.has(this.#context.world.bot.userId)) return;
    this.#context.gateway.dispatch({
      type,
      intent: GatewayIntentBits.Guilds,
      guildId: guild.id,
      build: () => data,
    });
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
      guildId: guild.id,
      build: () => payload,
    });
  }
}
