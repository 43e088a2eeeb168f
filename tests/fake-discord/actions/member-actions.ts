import { PermissionFlagsBits, type APIEmbed, type APIMessage } from 'discord-api-types/v10';
import { messagePayload } from '../payloads/message-payloads.ts';
import { DiscordApiError } from '../rules/discord-error.ts';
import { hasPermission } from '../rules/permissions.ts';
import type { FakeDiscordContext } from '../services/fake-discord-context.ts';
import type { MessageBody, UploadedFile } from '../services/message-body.ts';
import type { MessageService } from '../services/message-service.ts';
import type { ReactionService } from '../services/reaction-service.ts';
import type { TypingService } from '../services/typing-service.ts';
import type { MessageRecord } from '../state/records.ts';
import type { AttachmentInput } from './command-options.ts';
import { FakeDiscordUsageError } from './usage-error.ts';

export interface PostMessageInput {
  authorId: string;
  channelId: string;
  content?: string;
  /** Reply to this message (a `message_reference`; pings its author like the client does). */
  replyTo?: string;
  attachments?: AttachmentInput[];
  embeds?: APIEmbed[];
  stickerIds?: string[];
  /** e.g. SUPPRESS_NOTIFICATIONS (4096) for an @silent message. */
  flags?: number;
}

/**
 * What members do in the Discord client: post (mentions resolved with the client's defaults,
 * replies, attachments, stickers), edit, delete, type, react — under the same permission
 * checks — and read a channel the way they see it. A refused action throws a
 * FakeDiscordUsageError: the test asked for something the client would not allow.
 */
export class MemberActions {
  readonly #context: FakeDiscordContext;
  readonly #messages: MessageService;
  readonly #typing: TypingService;
  readonly #reactions: ReactionService;

  constructor(
    context: FakeDiscordContext,
    services: { messages: MessageService; typing: TypingService; reactions: ReactionService },
  ) {
    this.#context = context;
    this.#messages = services.messages;
    this.#typing = services.typing;
    this.#reactions = services.reactions;
  }

  postMessage(input: PostMessageInput): APIMessage {
    const files: UploadedFile[] = (input.attachments ?? []).map((attachment, index) => ({
      fieldName: `files[${index}]`,
      filename: attachment.filename,
      contentType: attachment.contentType ?? null,
      data: Buffer.isBuffer(attachment.data) ? attachment.data : Buffer.from(attachment.data),
    }));
    const voice = (input.attachments ?? []).some(
      (attachment) => attachment.durationSecs !== undefined,
    );
    const body: MessageBody = {
      content: input.content ?? '',
      // The client describes a voice message's file in `attachments` (length and waveform).
      ...(voice
        ? {
            attachments: (input.attachments ?? []).map((attachment, index) => ({
              id: String(index),
              filename: attachment.filename,
              duration_secs: attachment.durationSecs,
              waveform: attachment.waveform,
            })),
          }
        : {}),
      ...(input.embeds === undefined ? {} : { embeds: input.embeds }),
      ...(input.stickerIds === undefined ? {} : { sticker_ids: input.stickerIds }),
      ...(input.flags === undefined ? {} : { flags: input.flags }),
      ...(input.replyTo === undefined ? {} : { message_reference: { message_id: input.replyTo } }),
    };
    const message = this.#asUser(`post in ${input.channelId}`, () =>
      this.#messages.create({
        channelId: input.channelId,
        authorId: input.authorId,
        body,
        files,
        enforcePermissions: true,
      }),
    );
    return this.view(message, input.authorId);
  }

  editMessage(input: { authorId: string; messageId: string; content: string }): APIMessage {
    const message = this.#live(input.messageId);
    const edited = this.#asUser(`edit ${input.messageId}`, () =>
      this.#messages.edit({
        channelId: message.channelId,
        messageId: message.id,
        editorId: input.authorId,
        body: { content: input.content },
        files: [],
      }),
    );
    return this.view(edited, input.authorId);
  }

  deleteMessage(input: { actorId: string; messageId: string }): void {
    const message = this.#live(input.messageId);
    this.#asUser(`delete ${input.messageId}`, () =>
      this.#messages.delete({
        channelId: message.channelId,
        messageId: message.id,
        actorId: input.actorId,
      }),
    );
  }

  startTyping(input: { userId: string; channelId: string }): void {
    this.#asUser(`type in ${input.channelId}`, () => {
      const channel = this.#context.world.channel(input.channelId);
      if (
        !hasPermission(
          this.#context.world.permissionsIn(channel, input.userId),
          PermissionFlagsBits.ViewChannel,
        )
      ) {
        throw DiscordApiError.missingAccess();
      }
      this.#typing.start(input.channelId, input.userId);
    });
  }

  react(input: { userId: string; messageId: string; emoji: string }): void {
    const message = this.#live(input.messageId);
    this.#asUser(`react to ${input.messageId}`, () =>
      this.#reactions.add({
        channelId: message.channelId,
        messageId: message.id,
        userId: input.userId,
        emoji: input.emoji,
      }),
    );
  }

  unreact(input: { userId: string; messageId: string; emoji: string }): void {
    const message = this.#live(input.messageId);
    this.#reactions.remove({
      channelId: message.channelId,
      messageId: message.id,
      userId: input.userId,
      emoji: input.emoji,
      actorId: input.userId,
    });
  }

  /** The channel's live messages as `userId` sees them (ephemeral ones only their own), oldest first. */
  readChannel(channelId: string, userId: string): APIMessage[] {
    const { world } = this.#context;
    const channel = world.channel(channelId);
    const permissions = world.permissionsIn(channel, userId);
    const canRead = hasPermission(
      permissions,
      PermissionFlagsBits.ViewChannel | PermissionFlagsBits.ReadMessageHistory,
    );
    if (!canRead)
      throw new FakeDiscordUsageError(`user ${userId} cannot read channel ${channelId}`);
    return world
      .messagesIn(channelId)
      .filter((message) => message.visibleTo === null || message.visibleTo === userId)
      .map((message) => this.view(message, userId));
  }

  view(message: MessageRecord, viewerId: string): APIMessage {
    return messagePayload(this.#context.payloads, message, { forGateway: false, viewerId });
  }

  #live(messageId: string): MessageRecord {
    const message = this.#context.world.messages.get(messageId);
    if (message === undefined || message.deletedAt !== null)
      throw new FakeDiscordUsageError(`message ${messageId} is gone`);
    return message;
  }

  #asUser<T>(action: string, run: () => T): T {
    try {
      return run();
    } catch (error) {
      if (!(error instanceof DiscordApiError)) throw error;
      throw new FakeDiscordUsageError(
        `Discord refuses to ${action}: ${error.status} ${error.code} ${error.message}`,
      );
    }
  }
}
