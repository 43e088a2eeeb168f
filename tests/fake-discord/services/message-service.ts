import {
  ChannelType,
  MessageFlags,
  MessageType,
  PermissionFlagsBits,
  RESTJSONErrorCodes,
} from 'discord-api-types/v10';
import { dispatchInChannel } from '../gateway/channel-dispatch.ts';
import { applyMessageContentIntent } from '../gateway/intents.ts';
import { messagePayload } from '../payloads/message-payloads.ts';
import { DiscordApiError } from '../rules/discord-error.ts';
import { validateAllowedMentions } from '../rules/mentions.ts';
import { checkVoiceMessage, checkVoiceMessageEdit } from '../rules/voice-messages.ts';
import { isEmptyMessage, validateMessageBody } from '../rules/message-limits.ts';
import { hasPermission, isThread } from '../rules/permissions.ts';
import type {
  ChannelRecord,
  MessageInteractionRecord,
  MessageRecord,
  WebhookAuthorRecord,
} from '../state/records.ts';
import type { FakeDiscordContext } from './fake-discord-context.ts';
import {
  componentsOf,
  embedsOf,
  flagsOf,
  resolveAttachments,
  SETTABLE_FLAGS,
  textOf,
  type MessageBody,
  type UploadedFile,
} from './message-body.ts';
import { dispatchChannelEvent } from './channel-events.ts';
import { checkCanSend, checkOldMessageEdit } from './message-guards.ts';
import { applyMentions } from './message-mentions.ts';
import { resolveReference } from './message-reference.ts';

/** Channel types that hold messages (text-in-voice included). */
const MESSAGEABLE = new Set<ChannelType>([
  ChannelType.GuildText,
  ChannelType.GuildAnnouncement,
  ChannelType.GuildVoice,
  ChannelType.GuildStageVoice,
  ChannelType.PublicThread,
  ChannelType.PrivateThread,
  ChannelType.AnnouncementThread,
  ChannelType.DM,
]);

export interface CreateMessageInput {
  channelId: string;
  authorId: string;
  body: MessageBody;
  files: readonly UploadedFile[];
  /** False for interaction responses, which need no channel permission. */
  enforcePermissions: boolean;
  type?: MessageType;
  interaction?: MessageInteractionRecord;
  webhookId?: string;
  /** A channel webhook's execute: the shown name and avatar (`authorId` is the webhook's id). */
  webhookAuthor?: WebhookAuthorRecord;
  /** An application-owned webhook's messages name its application. */
  applicationId?: string;
  /** Ephemeral: only this user sees it, and it is never dispatched. */
  visibleTo?: string;
  /** Flags the server sets itself (EPHEMERAL, LOADING). */
  systemFlags?: number;
  /** The server's own placeholder (a deferred response's loading message) may be empty. */
  allowEmpty?: boolean;
}

export interface EditMessageInput {
  channelId: string;
  messageId: string;
  editorId: string;
  body: MessageBody;
  files: readonly UploadedFile[];
  /** Flags the server clears (LOADING once a deferred response is edited). */
  clearFlags?: number;
}

/** How long Discord remembers a nonce for `enforce_nonce` ("a few minutes"). */
const NONCE_WINDOW_MS = 5 * 60_000;

/**
 * Creates, edits and deletes messages under Discord's rules: channel type, permissions,
 * content/embed limits, allowed_mentions (an edit without it is re-parsed with the defaults),
 * the 30046 limit on edits of old messages, 10008 for gone messages. Each change is stored,
 * logged (pings), published to the hub and dispatched to the gateway.
 */
export class MessageService {
  readonly #context: FakeDiscordContext;

  constructor(context: FakeDiscordContext) {
    this.#context = context;
  }

  create(input: CreateMessageInput): MessageRecord {
    const { world } = this.#context;
    const channel = world.channel(input.channelId);
    if (!MESSAGEABLE.has(channel.type)) {
      throw new DiscordApiError({
        status: 400,
        code: RESTJSONErrorCodes.CannotSendMessagesInNonTextChannel,
        message: 'Cannot send messages in a non-text channel',
      });
    }
    const permissions = world.permissionsIn(channel, input.authorId);
    if (input.enforcePermissions) {
      checkCanSend(this.#context, { ...input, channel, permissions });
    }
    this.#validate(input.body);
    const repeated = this.#repeatOf(input, channel.messageIds);
    if (repeated !== undefined) return repeated;
    const reference = resolveReference(world, { channel, reference: input.body.message_reference });
    const attachments = resolveAttachments({
      body: input.body,
      files: input.files,
      existing: [],
      world,
      channelId: channel.id,
    });
    const content = textOf(input.body.content);
    const embeds = embedsOf(input.body.embeds);
    const components = componentsOf(input.body.components);
    const stickerIds = Array.isArray(input.body.sticker_ids)
      ? input.body.sticker_ids.map(String)
      : [];
    const empty = isEmptyMessage({
      content,
      embeds,
      attachments: attachments.length,
      components,
      stickers: stickerIds.length,
      poll: input.body.poll !== undefined && input.body.poll !== null,
    });
    if (empty && input.allowEmpty !== true) throw DiscordApiError.emptyMessage();
    const flags = (flagsOf(input.body.flags) & SETTABLE_FLAGS) | (input.systemFlags ?? 0);
    checkVoiceMessage({ flags, content, embeds, components, stickerIds, attachments });

    const now = world.clock.now();
    const message: MessageRecord = {
      id: world.ids.next(),
      channelId: channel.id,
      guildId: channel.guildId,
      authorId: input.authorId,
      type: input.type ?? (reference === null ? MessageType.Default : MessageType.Reply),
      content,
      embeds,
      components,
      attachments,
      stickerIds,
      flags,
      tts:
        input.body.tts === true && hasPermission(permissions, PermissionFlagsBits.SendTTSMessages),
      nonce:
        typeof input.body.nonce === 'string' || typeof input.body.nonce === 'number'
          ? input.body.nonce
          : null,
      createdAt: now,
      editedAt: null,
      deletedAt: null,
      reference,
      mentions: { everyone: false, userIds: [], roleIds: [] },
      pinned: false,
      reactions: new Map(),
      webhookId: input.webhookId ?? null,
      webhookAuthor: input.webhookAuthor ?? null,
      applicationId:
        input.interaction === undefined ? (input.applicationId ?? null) : world.bot.applicationId,
      interaction: input.interaction ?? null,
      visibleTo: input.visibleTo ?? null,
      editCount: 0,
    };
    world.messages.set(message.id, message);
    channel.messageIds.push(message.id);
    channel.lastMessageId = message.id;
    channel.messagesSent += 1;
    // Posting clears the author's typing indicator, as in the client.
    world.typing.get(channel.id)?.delete(input.authorId);
    this.#unarchiveOnPost(channel);
    applyMentions(this.#context, {
      message,
      allowedMentions: input.body.allowed_mentions,
      permissions,
      operation: 'create',
    });
    this.#context.hub.emit({ type: 'message-create', message });
    if (message.visibleTo === null) this.#dispatch('MESSAGE_CREATE', message);
    return message;
  }

  /**
   * With `enforce_nonce`, a create repeating the nonce of a message the same author made in
   * the channel in the last few minutes answers that message instead of posting another.
   */
  #repeatOf(input: CreateMessageInput, messageIds: readonly string[]): MessageRecord | undefined {
    const { nonce, enforce_nonce: enforce } = input.body;
    if (enforce !== true || (typeof nonce !== 'string' && typeof nonce !== 'number')) {
      return undefined;
    }
    const { world } = this.#context;
    const since = world.clock.now() - NONCE_WINDOW_MS;
    for (let index = messageIds.length - 1; index >= 0; index -= 1) {
      const message = world.messages.get(messageIds[index] ?? '');
      if (message === undefined || message.createdAt < since) break;
      if (
        message.deletedAt === null &&
        message.authorId === input.authorId &&
        message.nonce === nonce
      ) {
        return message;
      }
    }
    return undefined;
  }

  edit(input: EditMessageInput): MessageRecord {
    const { world } = this.#context;
    const message = world.message(input.channelId, input.messageId);
    if (message.authorId !== input.editorId) {
      throw new DiscordApiError({
        status: 403,
        code: RESTJSONErrorCodes.CannotEditMessageAuthoredByAnotherUser,
        message: 'Cannot edit a message authored by another user',
      });
    }
    checkOldMessageEdit(this.#context, message);
    checkVoiceMessageEdit(message.flags);
    this.#validate(input.body);
    const channel = world.channel(message.channelId);
    const body = input.body;
    const content = body.content === undefined ? message.content : textOf(body.content);
    const embeds = body.embeds === undefined ? message.embeds : embedsOf(body.embeds);
    const components =
      body.components === undefined ? message.components : componentsOf(body.components);
    const attachments =
      body.attachments === undefined && input.files.length === 0
        ? message.attachments
        : resolveAttachments({
            body,
            files: input.files,
            existing: message.attachments,
            world,
            channelId: message.channelId,
          });
    const empty = isEmptyMessage({
      content,
      embeds,
      attachments: attachments.length,
      components,
      stickers: message.stickerIds.length,
      poll: false,
    });
    if (empty) throw DiscordApiError.emptyMessage();

    message.content = content;
    message.embeds = embeds;
    message.components = components;
    message.attachments = attachments;
    if (body.flags !== undefined) {
      const suppress = flagsOf(body.flags) & MessageFlags.SuppressEmbeds;
      message.flags = (message.flags & ~MessageFlags.SuppressEmbeds) | suppress;
    }
    message.flags &= ~(input.clearFlags ?? 0);
    message.editedAt = world.clock.now();
    message.editCount += 1;
    const permissions = world.permissionsIn(channel, message.authorId);
    applyMentions(this.#context, {
      message,
      allowedMentions: body.allowed_mentions,
      permissions,
      operation: 'edit',
    });
    this.#context.hub.emit({ type: 'message-update', message });
    if (message.visibleTo === null) this.#dispatch('MESSAGE_UPDATE', message);
    return message;
  }

  /** Deletes a message; `actorId` needs to be its author or hold MANAGE_MESSAGES. */
  delete(options: { channelId: string; messageId: string; actorId: string }): MessageRecord {
    const { world } = this.#context;
    const message = world.message(options.channelId, options.messageId);
    const channel = world.channel(message.channelId);
    if (message.authorId !== options.actorId) {
      const canManage =
        channel.guildId !== null &&
        hasPermission(
          world.permissionsIn(channel, options.actorId),
          PermissionFlagsBits.ManageMessages,
        );
      if (!canManage) throw DiscordApiError.missingPermissions();
    }
    message.deletedAt = world.clock.now();
    channel.messageIds = channel.messageIds.filter((id) => id !== message.id);
    if (channel.lastMessageId === message.id)
      channel.lastMessageId = channel.messageIds.at(-1) ?? null;
    this.#context.hub.emit({ type: 'message-delete', message });
    if (message.visibleTo === null) {
      dispatchInChannel(this.#context, {
        type: 'MESSAGE_DELETE',
        channel,
        build: () => ({
          id: message.id,
          channel_id: message.channelId,
          ...(message.guildId === null ? {} : { guild_id: message.guildId }),
        }),
      });
    }
    return message;
  }

  #validate(body: MessageBody): void {
    const problems = [
      ...validateMessageBody(body),
      ...validateAllowedMentions(body.allowed_mentions),
    ];
    if (problems.length > 0) throw DiscordApiError.invalidFormBody(problems);
  }

  /** Posting in an archived, unlocked thread unarchives it (THREAD_UPDATE). */
  #unarchiveOnPost(channel: ChannelRecord): void {
    if (!isThread(channel) || channel.thread?.archived !== true || channel.thread.locked) return;
    channel.thread.archived = false;
    dispatchChannelEvent(this.#context, { kind: 'update', channel: channel });
  }

  #dispatch(type: 'MESSAGE_CREATE' | 'MESSAGE_UPDATE', message: MessageRecord): void {
    const context = this.#context;
    const payload = messagePayload(context.payloads, message, { forGateway: true });
    dispatchInChannel(context, {
      type,
      channel: context.world.channel(message.channelId),
      build: (session) =>
        applyMessageContentIntent(payload, {
          intents: session.intents,
          botUserId: context.world.bot.userId,
        }),
    });
  }
}
