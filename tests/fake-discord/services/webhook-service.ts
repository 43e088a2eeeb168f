import { randomBytes } from 'node:crypto';
import { ChannelType, PermissionFlagsBits, RESTJSONErrorCodes } from 'discord-api-types/v10';
import { DiscordApiError, FIELD_ERRORS, type FormProblem } from '../rules/discord-error.ts';
import { hasPermission, isThread } from '../rules/permissions.ts';
import type { ChannelRecord, MessageRecord, WebhookRecord } from '../state/records.ts';
import type { ChannelBuilder } from './channel-builder.ts';
import type { FakeDiscordContext } from './fake-discord-context.ts';
import type { MessageBody, UploadedFile } from './message-body.ts';
import type { MessageService } from './message-service.ts';

/** Discord allows 15 webhooks per channel (30007 beyond). */
export const WEBHOOKS_PER_CHANNEL = 15;
/** A webhook's name and an execute's `username`: 1–80 characters. */
const NAME_LIMIT = 80;
/** Words Discord refuses in webhook names and usernames. */
const FORBIDDEN_NAME_WORDS = ['clyde', 'discord'];

/** The body of a webhook execute: a message body plus the per-message author and forum post. */
export interface ExecuteBody extends MessageBody {
  username?: unknown;
  avatar_url?: unknown;
  thread_name?: unknown;
}

/**
 * Channel webhooks (incoming, type 1): create, list and delete with the bot's token under
 * MANAGE_WEBHOOKS; execute, edit and delete their messages with the webhook's token — no
 * channel permission, @everyone allowed unless allowed_mentions says otherwise. `thread_id`
 * posts in a thread of the webhook's channel; a forum needs `thread_id` or `thread_name`.
 * Errors as Discord words them: 10015 Unknown Webhook, 50027 Invalid Webhook Token, 30007.
 */
export class WebhookService {
  readonly #context: FakeDiscordContext;
  readonly #messages: MessageService;
  readonly #channels: ChannelBuilder;

  constructor(
    context: FakeDiscordContext,
    parts: { messages: MessageService; channels: ChannelBuilder },
  ) {
    this.#context = context;
    this.#messages = parts.messages;
    this.#channels = parts.channels;
  }

  create(options: {
    channelId: string;
    creatorId: string;
    name: unknown;
    avatar?: unknown;
  }): WebhookRecord {
    const { world } = this.#context;
    const channel = world.channel(options.channelId);
    if (channel.guildId === null || isThread(channel)) {
      throw new DiscordApiError({
        status: 400,
        code: RESTJSONErrorCodes.CannotExecuteActionOnThisChannelType,
        message: 'Cannot execute action on this channel type',
      });
    }
    this.#requireManageWebhooks(channel, options.creatorId);
    const problems = nameProblems('name', options.name);
    if (problems.length > 0) throw DiscordApiError.invalidFormBody(problems);
    if (this.list(channel.id).length >= WEBHOOKS_PER_CHANNEL) {
      throw new DiscordApiError({
        status: 400,
        code: RESTJSONErrorCodes.MaximumNumberOfWebhooksReached,
        message: `Maximum number of webhooks reached (${WEBHOOKS_PER_CHANNEL})`,
      });
    }
    const webhook: WebhookRecord = {
      id: world.ids.next(),
      token: randomBytes(36).toString('base64url'),
      channelId: channel.id,
      guildId: channel.guildId,
      name: String(options.name),
      avatar: typeof options.avatar === 'string' ? 'avatarhash' : null,
      creatorId: options.creatorId,
      applicationId: options.creatorId === world.bot.userId ? world.bot.applicationId : null,
      createdAt: world.clock.now(),
    };
    world.webhooks.set(webhook.id, webhook);
    return webhook;
  }

  /** The channel's webhooks, oldest first. */
  list(channelId: string): WebhookRecord[] {
    return [...this.#context.world.webhooks.values()].filter(
      (webhook) => webhook.channelId === channelId,
    );
  }

  /** Deletes a webhook as `actorId` (MANAGE_WEBHOOKS in its channel); 10015 when gone. */
  delete(options: { webhookId: string; actorId: string }): WebhookRecord {
    const { world } = this.#context;
    const webhook = world.webhook(options.webhookId);
    this.#requireManageWebhooks(world.channel(webhook.channelId), options.actorId);
    world.webhooks.delete(webhook.id);
    return webhook;
  }

  /** The webhook behind a token route (10015 unknown, 50027 wrong token). */
  withToken(webhookId: string, token: string): WebhookRecord {
    const webhook = this.#context.world.webhook(webhookId);
    if (webhook.token !== token) {
      throw new DiscordApiError({
        status: 401,
        code: RESTJSONErrorCodes.InvalidWebhookToken,
        message: 'Invalid Webhook Token',
      });
    }
    return webhook;
  }

  execute(
    webhook: WebhookRecord,
    request: { body: ExecuteBody; files: readonly UploadedFile[]; threadId: string | null },
  ): MessageRecord {
    const problems = [
      ...(request.body.username === undefined
        ? []
        : nameProblems('username', request.body.username)),
    ];
    if (problems.length > 0) throw DiscordApiError.invalidFormBody(problems);
    const channel = this.#target(webhook, request);
    return this.#messages.create({
      channelId: channel.id,
      authorId: webhook.id,
      body: request.body,
      files: request.files,
      enforcePermissions: false,
      webhookId: webhook.id,
      ...(webhook.applicationId === null ? {} : { applicationId: webhook.applicationId }),
      webhookAuthor: {
        username: typeof request.body.username === 'string' ? request.body.username : webhook.name,
        avatarUrl: typeof request.body.avatar_url === 'string' ? request.body.avatar_url : null,
      },
    });
  }

  /** A message this webhook sent, in its channel or the thread named by `thread_id`. */
  message(
    webhook: WebhookRecord,
    options: { messageId: string; threadId: string | null },
  ): MessageRecord {
    const channelId = this.#threadOrChannel(webhook, options.threadId).id;
    const message = this.#context.world.message(channelId, options.messageId);
    if (message.webhookId !== webhook.id) throw DiscordApiError.unknown('Message');
    return message;
  }

  editMessage(
    webhook: WebhookRecord,
    options: {
      messageId: string;
      threadId: string | null;
      body: MessageBody;
      files: readonly UploadedFile[];
    },
  ): MessageRecord {
    const message = this.message(webhook, options);
    return this.#messages.edit({
      channelId: message.channelId,
      messageId: message.id,
      editorId: webhook.id,
      body: options.body,
      files: options.files,
    });
  }

  deleteMessage(
    webhook: WebhookRecord,
    options: { messageId: string; threadId: string | null },
  ): void {
    const message = this.message(webhook, options);
    this.#messages.delete({
      channelId: message.channelId,
      messageId: message.id,
      actorId: webhook.id,
    });
  }

  /** Where an execute posts: the channel, a thread of it, or a new forum post. */
  #target(
    webhook: WebhookRecord,
    request: { body: ExecuteBody; threadId: string | null },
  ): ChannelRecord {
    const { world } = this.#context;
    const channel = world.channel(webhook.channelId);
    const threadName = request.body.thread_name;
    if (channel.type !== ChannelType.GuildForum && channel.type !== ChannelType.GuildMedia) {
      return this.#threadOrChannel(webhook, request.threadId);
    }
    if (request.threadId !== null && threadName !== undefined) {
      throw forumError(
        RESTJSONErrorCodes.WebhooksPostedToForumChannelsCannotHaveBothAThreadNameAndThreadId,
        'Webhooks can only create threads in forum channels cannot have both a thread_name and thread_id',
      );
    }
    if (request.threadId !== null) return this.#threadOrChannel(webhook, request.threadId);
    if (typeof threadName !== 'string' || threadName.length === 0) {
      throw forumError(
        RESTJSONErrorCodes.WebhooksPostedToForumChannelsMustHaveAThreadNameOrThreadId,
        'Webhooks posted to forum channels must have a thread_name or thread_id',
      );
    }
    return this.#channels.createThread({
      parentId: channel.id,
      name: threadName,
      ownerId: webhook.id,
    });
  }

  #threadOrChannel(webhook: WebhookRecord, threadId: string | null): ChannelRecord {
    const { world } = this.#context;
    if (threadId === null) return world.channel(webhook.channelId);
    const thread = world.channels.get(threadId);
    if (thread === undefined || !isThread(thread) || thread.parentId !== webhook.channelId) {
      throw DiscordApiError.unknown('Channel');
    }
    return thread;
  }

  #requireManageWebhooks(channel: ChannelRecord, userId: string): void {
    const permissions = this.#context.world.permissionsIn(channel, userId);
    if (!hasPermission(permissions, PermissionFlagsBits.ViewChannel)) {
      throw DiscordApiError.missingAccess();
    }
    if (!hasPermission(permissions, PermissionFlagsBits.ManageWebhooks)) {
      throw DiscordApiError.missingPermissions();
    }
  }
}

function nameProblems(field: string, value: unknown): FormProblem[] {
  if (typeof value !== 'string') return [{ path: [field], error: FIELD_ERRORS.required() }];
  if (value.length < 1 || value.length > NAME_LIMIT) {
    return [{ path: [field], error: FIELD_ERRORS.badLength(1, NAME_LIMIT) }];
  }
  const lower = value.toLowerCase();
  const word = FORBIDDEN_NAME_WORDS.find((forbidden) => lower.includes(forbidden));
  if (word === undefined) return [];
  return [
    {
      path: [field],
      error: { code: 'USERNAME_INVALID_CONTAINS', message: `Username cannot contain "${word}"` },
    },
  ];
}

function forumError(code: number, message: string): DiscordApiError {
  return new DiscordApiError({ status: 400, code, message });
}
