import { randomBytes } from 'node:crypto';
import {
  InteractionResponseType,
  InteractionType,
  MessageFlags,
  MessageType,
  RESTJSONErrorCodes,
  type APIInteraction,
} from 'discord-api-types/v10';
import { messagePayload } from '../payloads/message-payloads.ts';
import { DiscordApiError } from '../rules/discord-error.ts';
import type { MessageRecord } from '../state/records.ts';
import { validateCallbackData } from './interaction-callback-rules.ts';
import type { InteractionRecord } from './interaction-records.ts';
import type { FakeDiscordContext } from './fake-discord-context.ts';
import type { MessageBody, UploadedFile } from './message-body.ts';
import type { MessageService } from './message-service.ts';

export interface OpenInteractionInput {
  type: InteractionType;
  userId: string;
  channelId: string;
  commandName: string | null;
  sourceMessageId: string | null;
  /** Only this gateway session receives it (default: every session). */
  sessionId?: string;
  /** Builds INTERACTION_CREATE's payload once the id and token exist. */
  build: (identity: { id: string; token: string }) => APIInteraction;
}

/**
 * The interaction lifecycle: INTERACTION_CREATE, the one callback (within the deadline, once),
 * and the webhook routes on the token — `@original` get/edit/delete and follow-ups — with
 * Discord's errors: 10062 unknown or expired interaction, 40060 already acknowledged, 50027
 * expired token. A follow-up sent while a deferred response still shows "thinking…" edits it.
 */
export class InteractionService {
  readonly #context: FakeDiscordContext;
  readonly #messages: MessageService;
  readonly #byId = new Map<string, InteractionRecord>();
  readonly #byToken = new Map<string, InteractionRecord>();

  constructor(context: FakeDiscordContext, messages: MessageService) {
    this.#context = context;
    this.#messages = messages;
  }

  open(input: OpenInteractionInput): InteractionRecord {
    const { world } = this.#context;
    const id = world.ids.next();
    const token = `aW50ZXJhY3Rpb24.${id}.${randomBytes(24).toString('base64url')}`;
    const channel = world.channel(input.channelId);
    const record: InteractionRecord = {
      id,
      token,
      type: input.type,
      userId: input.userId,
      channelId: channel.id,
      guildId: channel.guildId,
      createdAt: world.clock.now(),
      commandName: input.commandName,
      sourceMessageId: input.sourceMessageId,
      payload: input.build({ id, token }),
      callbacks: [],
      originalMessageId: null,
      loading: false,
      ephemeral: false,
      followUpIds: [],
    };
    this.#byId.set(id, record);
    this.#byToken.set(token, record);
    this.#context.gateway.dispatch({
      type: 'INTERACTION_CREATE',
      intent: null,
      guildId: record.guildId,
      build: (session) =>
        input.sessionId === undefined || session.id === input.sessionId
          ? record.payload
          : undefined,
    });
    return record;
  }

  get(id: string): InteractionRecord | undefined {
    return this.#byId.get(id);
  }

  /** `POST /interactions/:id/:token/callback`. */
  callback(input: {
    interactionId: string;
    token: string;
    body: unknown;
    files: readonly UploadedFile[];
    withResponse: boolean;
  }): { status: number; body?: unknown } {
    const { world, options } = this.#context;
    const record = this.#byId.get(input.interactionId);
    const now = world.clock.now();
    if (record === undefined || record.token !== input.token) throw unknownInteraction();
    if (record.callbacks.length > 0) {
      throw new DiscordApiError({
        status: 400,
        code: RESTJSONErrorCodes.InteractionHasAlreadyBeenAcknowledged,
        message: 'Interaction has already been acknowledged.',
      });
    }
    // Past the deadline Discord invalidates the token: the user saw "The application did not respond".
    if (now - record.createdAt > options.interactionResponseDeadlineMs) throw unknownInteraction();
    const body = (input.body ?? {}) as { type?: unknown; data?: unknown };
    const type = body.type as InteractionResponseType;
    const data = (body.data ?? undefined) as Record<string, unknown> | undefined;
    validateCallbackData(record, type, data);

    let message: MessageRecord | undefined;
    const ephemeral = ((data?.flags as number | undefined) ?? 0) & MessageFlags.Ephemeral;
    switch (type) {
      case InteractionResponseType.ChannelMessageWithSource:
      case InteractionResponseType.DeferredChannelMessageWithSource:
        record.ephemeral = ephemeral !== 0;
        record.loading = type === InteractionResponseType.DeferredChannelMessageWithSource;
        message = this.#createResponseMessage(record, {
          body: record.loading ? {} : (data ?? {}),
          files: record.loading ? [] : input.files,
          original: true,
        });
        record.originalMessageId = message.id;
        break;
      case InteractionResponseType.DeferredMessageUpdate:
        record.originalMessageId = record.sourceMessageId;
        break;
      case InteractionResponseType.UpdateMessage:
        record.originalMessageId = record.sourceMessageId;
        message = this.#messages.edit({
          channelId: record.channelId,
          messageId: record.sourceMessageId ?? '',
          editorId: world.bot.userId,
          body: data ?? {},
          files: input.files,
        });
        break;
      case InteractionResponseType.ApplicationCommandAutocompleteResult:
      case InteractionResponseType.Modal:
      case InteractionResponseType.Pong:
      case InteractionResponseType.PremiumRequired:
      case InteractionResponseType.LaunchActivity:
        break;
    }
    const callback = { type, data, at: now, latencyMs: now - record.createdAt };
    record.callbacks.push(callback);
    this.#context.hub.emit({ type: 'interaction-callback', interactionId: record.id, callback });
    if (!input.withResponse) return { status: 204 };
    return {
      status: 200,
      body: {
        interaction: {
          id: record.id,
          type: record.type,
          ...(message === undefined
            ? {}
            : {
                response_message_id: message.id,
                response_message_loading: record.loading,
                response_message_ephemeral: record.ephemeral,
              }),
        },
        resource: {
          type,
          ...(message !== undefined && !record.loading
            ? { message: messagePayload(this.#context.payloads, message, { forGateway: false }) }
            : {}),
        },
      },
    };
  }

  /** The interaction behind a webhook route (`/webhooks/:applicationId/:token/...`). */
  byWebhook(applicationId: string, token: string): InteractionRecord {
    const { world, options } = this.#context;
    const record = this.#byToken.get(token);
    if (applicationId !== world.bot.applicationId || record === undefined) {
      throw new DiscordApiError({
        status: 404,
        code: RESTJSONErrorCodes.UnknownWebhook,
        message: 'Unknown Webhook',
      });
    }
    if (world.clock.now() - record.createdAt > options.interactionTokenLifetimeMs) {
      throw new DiscordApiError({
        status: 401,
        code: RESTJSONErrorCodes.InvalidWebhookToken,
        message: 'Invalid Webhook Token',
      });
    }
    return record;
  }

  /** The message a webhook route addresses: `@original` or one of the follow-ups. */
  webhookMessage(record: InteractionRecord, messageId: string): MessageRecord {
    const id = messageId === '@original' ? record.originalMessageId : messageId;
    const owned =
      id !== null && (id === record.originalMessageId || record.followUpIds.includes(id));
    if (!owned) throw DiscordApiError.unknown('Message');
    return this.#context.world.message(record.channelId, id);
  }

  editWebhookMessage(
    record: InteractionRecord,
    edit: { messageId: string; body: MessageBody; files: readonly UploadedFile[] },
  ): MessageRecord {
    const { messageId, body, files } = edit;
    const message = this.webhookMessage(record, messageId);
    const wasLoading = record.loading && message.id === record.originalMessageId;
    const edited = this.#messages.edit({
      channelId: record.channelId,
      messageId: message.id,
      editorId: this.#context.world.bot.userId,
      body,
      files,
      clearFlags: wasLoading ? MessageFlags.Loading : 0,
    });
    if (wasLoading) record.loading = false;
    return edited;
  }

  deleteWebhookMessage(record: InteractionRecord, messageId: string): void {
    const message = this.webhookMessage(record, messageId);
    this.#messages.delete({
      channelId: record.channelId,
      messageId: message.id,
      actorId: message.authorId,
    });
  }

  /** `POST /webhooks/:applicationId/:token`: a follow-up (or, while still loading, the deferred edit). */
  followUp(
    record: InteractionRecord,
    content: { body: MessageBody; files: readonly UploadedFile[] },
  ): MessageRecord {
    const { body, files } = content;
    if (record.callbacks.length === 0) {
      throw new DiscordApiError({
        status: 404,
        code: RESTJSONErrorCodes.UnknownWebhook,
        message: 'Unknown Webhook',
      });
    }
    if (record.loading && record.originalMessageId !== null) {
      return this.editWebhookMessage(record, { messageId: '@original', body, files });
    }
    const flags = typeof body.flags === 'number' ? body.flags : 0;
    const message = this.#createResponseMessage(record, {
      body,
      files,
      original: false,
      ephemeral: (flags & MessageFlags.Ephemeral) !== 0,
    });
    record.followUpIds.push(message.id);
    return message;
  }

  #createResponseMessage(
    record: InteractionRecord,
    options: {
      body: MessageBody;
      files: readonly UploadedFile[];
      original: boolean;
      ephemeral?: boolean;
    },
  ): MessageRecord {
    const { world } = this.#context;
    const ephemeral = options.ephemeral ?? record.ephemeral;
    const commandResponse = options.original && record.type === InteractionType.ApplicationCommand;
    return this.#messages.create({
      channelId: record.channelId,
      authorId: world.bot.userId,
      body: options.body,
      files: options.files,
      enforcePermissions: false,
      type: commandResponse ? MessageType.ChatInputCommand : MessageType.Default,
      interaction: {
        interactionId: record.id,
        interactionType: record.type,
        userId: record.userId,
        commandName: record.commandName,
      },
      webhookId: world.bot.applicationId,
      ...(ephemeral ? { visibleTo: record.userId } : {}),
      systemFlags:
        (ephemeral ? MessageFlags.Ephemeral : 0) |
        (options.original && record.loading ? MessageFlags.Loading : 0),
      allowEmpty: options.original && record.loading,
    });
  }
}

function unknownInteraction(): DiscordApiError {
  return new DiscordApiError({
    status: 404,
    code: RESTJSONErrorCodes.UnknownInteraction,
    message: 'Unknown interaction',
  });
}
