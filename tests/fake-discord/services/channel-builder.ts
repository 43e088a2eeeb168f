import { ChannelType } from 'discord-api-types/v10';
import type { ChannelRecord, OverwriteRecord } from '../state/records.ts';
import { dispatchChannelEvent } from './channel-events.ts';
import type { FakeDiscordContext } from './fake-discord-context.ts';

export type GuildChannelKind = 'text' | 'announcement' | 'voice' | 'forum' | 'category';

const CHANNEL_TYPES: Record<GuildChannelKind, ChannelType> = {
  text: ChannelType.GuildText,
  announcement: ChannelType.GuildAnnouncement,
  voice: ChannelType.GuildVoice,
  forum: ChannelType.GuildForum,
  category: ChannelType.GuildCategory,
};

/**
 * Creates and changes channels: guild channels of every kind, permission overwrites, threads
 * (public, private, announcement; forum posts are public threads), and the bot's DM channels —
 * announcing each as Discord would (CHANNEL_CREATE/UPDATE, THREAD_CREATE; DMs silently).
 */
export class ChannelBuilder {
  readonly #context: FakeDiscordContext;

  constructor(context: FakeDiscordContext) {
    this.#context = context;
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
    dispatchChannelEvent(this.#context, { kind: 'create', channel: channel });
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
    dispatchChannelEvent(this.#context, { kind: 'update', channel: channel });
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
    dispatchChannelEvent(this.#context, { kind: 'create', channel: channel });
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
    dispatchChannelEvent(this.#context, { kind: 'create', channel: channel });
    return channel;
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
}
