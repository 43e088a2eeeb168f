import { PermissionFlagsBits } from 'discord-api-types/v10';
import type { RouteDefinition } from '../http/router.ts';
import { messagePayload } from '../payloads/message-payloads.ts';
import { DiscordApiError } from '../rules/discord-error.ts';
import { hasPermission, sendPermissionFor } from '../rules/permissions.ts';
import type { FakeDiscordContext } from '../services/fake-discord-context.ts';
import type { MessageService } from '../services/message-service.ts';
import type { TypingService } from '../services/typing-service.ts';
import type { MessageRecord } from '../state/records.ts';
import {
  botRoute,
  json,
  NO_CONTENT,
  objectBody,
  requireBotPermission,
  visibleChannel,
} from './route-helpers.ts';

/**
 * Channel messages: create, edit, delete, get one, list (`before`/`after`/`around`, `limit`),
 * and typing. Creates and edits share one per-channel bucket; deletes have their own.
 */
export function messageRoutes(
  context: FakeDiscordContext,
  services: { messages: MessageService; typing: TypingService },
): RouteDefinition[] {
  const { world, options } = context;
  const writeBucket = { definition: options.buckets.messageWrite, resourceParameter: 'channelId' };
  const reply = (message: MessageRecord) =>
    json(messagePayload(context.payloads, message, { forGateway: false }));

  return [
    botRoute(
      'POST',
      '/channels/:channelId/messages',
      (request) => {
        visibleChannel(context, request.params.channelId ?? '');
        const message = services.messages.create({
          channelId: request.params.channelId ?? '',
          authorId: world.bot.userId,
          body: objectBody(request),
          files: request.files,
          enforcePermissions: true,
        });
        return reply(message);
      },
      writeBucket,
    ),
    botRoute(
      'PATCH',
      '/channels/:channelId/messages/:messageId',
      (request) => {
        visibleChannel(context, request.params.channelId ?? '');
        const message = services.messages.edit({
          channelId: request.params.channelId ?? '',
          messageId: request.params.messageId ?? '',
          editorId: world.bot.userId,
          body: objectBody(request),
          files: request.files,
        });
        return reply(message);
      },
      writeBucket,
    ),
    botRoute(
      'DELETE',
      '/channels/:channelId/messages/:messageId',
      (request) => {
        visibleChannel(context, request.params.channelId ?? '');
        services.messages.delete({
          channelId: request.params.channelId ?? '',
          messageId: request.params.messageId ?? '',
          actorId: world.bot.userId,
        });
        return NO_CONTENT;
      },
      { definition: options.buckets.messageDelete, resourceParameter: 'channelId' },
    ),
    botRoute('GET', '/channels/:channelId/messages/:messageId', (request) => {
      const channel = visibleChannel(context, request.params.channelId ?? '');
      if (!canReadHistory(context, channel.id)) throw DiscordApiError.missingAccess();
      const message = world.message(channel.id, request.params.messageId ?? '');
      if (message.visibleTo !== null) throw DiscordApiError.unknown('Message');
      return reply(message);
    }),
    botRoute('GET', '/channels/:channelId/messages', (request) => {
      const channel = visibleChannel(context, request.params.channelId ?? '');
      const limit = Number(request.query.get('limit') ?? '50');
      if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
        throw DiscordApiError.invalidFormBody([
          {
            path: ['limit'],
            error: {
              code: 'NUMBER_TYPE_MAX',
              message: 'Int value should be less than or equal to 100.',
            },
          },
        ]);
      }
      if (!canReadHistory(context, channel.id)) return json([]);
      const listed = world.messagesIn(channel.id).filter((message) => message.visibleTo === null);
      return json(
        window(listed, request.query, limit).map((message) =>
          messagePayload(context.payloads, message, { forGateway: false }),
        ),
      );
    }),
    botRoute(
      'POST',
      '/channels/:channelId/typing',
      (request) => {
        const channel = visibleChannel(context, request.params.channelId ?? '');
        requireBotPermission(context, channel, sendPermissionFor(channel));
        services.typing.start(channel.id, world.bot.userId);
        return NO_CONTENT;
      },
      { definition: options.buckets.typing, resourceParameter: 'channelId' },
    ),
  ];
}

function canReadHistory(context: FakeDiscordContext, channelId: string): boolean {
  const { world } = context;
  const permissions = world.permissionsIn(world.channel(channelId), world.bot.userId);
  return hasPermission(permissions, PermissionFlagsBits.ReadMessageHistory);
}

/** Discord's list semantics: newest first; `before`, `after` or `around` a message id. */
function window(
  messages: readonly MessageRecord[],
  query: URLSearchParams,
  limit: number,
): MessageRecord[] {
  const byId = (id: string) => BigInt(id);
  const before = query.get('before');
  const after = query.get('after');
  const around = query.get('around');
  if (after !== null) {
    return messages
      .filter((message) => byId(message.id) > byId(after))
      .slice(0, limit)
      .reverse();
  }
  if (around !== null) {
    const index = messages.findIndex((message) => byId(message.id) >= byId(around));
    const center = index === -1 ? messages.length : index;
    const start = Math.max(0, center - Math.floor(limit / 2));
    return messages.slice(start, start + limit).reverse();
  }
  const upper =
    before === null ? messages : messages.filter((message) => byId(message.id) < byId(before));
  return upper.slice(-limit).reverse();
}
