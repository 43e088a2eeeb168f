import { ChannelType, PermissionFlagsBits } from 'discord-api-types/v10';
import type { RouteDefinition } from '../http/router.ts';
import { channelPayload, threadMemberPayload } from '../payloads/channel-payloads.ts';
import { messagePayload } from '../payloads/message-payloads.ts';
import { DiscordApiError, FIELD_ERRORS } from '../rules/discord-error.ts';
import { isThread } from '../rules/permissions.ts';
import { dispatchChannelEvent } from '../services/channel-events.ts';
import type { FakeDiscordContext } from '../services/fake-discord-context.ts';
import type { MessageService } from '../services/message-service.ts';
import type { ChannelBuilder } from '../services/channel-builder.ts';
import {
  botRoute,
  json,
  NO_CONTENT,
  objectBody,
  requireBotPermission,
  visibleChannel,
} from './route-helpers.ts';

/** Channels and threads: get a channel, start threads and forum posts, join and leave threads. */
export function channelRoutes(
  context: FakeDiscordContext,
  services: { messages: MessageService; channels: ChannelBuilder },
): RouteDefinition[] {
  const { world } = context;
  const botId = world.bot.userId;
  const threadName = (body: Record<string, unknown>): string => {
    const name = body.name;
    if (typeof name !== 'string' || name.length < 1 || name.length > 100) {
      throw DiscordApiError.invalidFormBody([
        { path: ['name'], error: FIELD_ERRORS.badLength(1, 100) },
      ]);
    }
    return name;
  };

  return [
    botRoute('GET', '/channels/:channelId', (request) =>
      json(channelPayload(world, visibleChannel(context, request.params.channelId ?? ''))),
    ),
    botRoute('POST', '/channels/:channelId/threads', (request) => {
      const parent = visibleChannel(context, request.params.channelId ?? '');
      const body = objectBody(request);
      const name = threadName(body);
      if (parent.type === ChannelType.GuildForum || parent.type === ChannelType.GuildMedia) {
        requireBotPermission(context, parent, PermissionFlagsBits.SendMessages);
        const thread = services.channels.createThread({
          parentId: parent.id,
          name,
          ownerId: botId,
          appliedTags: Array.isArray(body.applied_tags) ? body.applied_tags.map(String) : [],
        });
        const message = services.messages.create({
          channelId: thread.id,
          authorId: botId,
          body: body.message ?? {},
          files: request.files,
          enforcePermissions: false,
        });
        return json(
          {
            ...channelPayload(world, thread),
            message: messagePayload(context.payloads, message, { forGateway: false }),
          },
          201,
        );
      }
      if (parent.type !== ChannelType.GuildText && parent.type !== ChannelType.GuildAnnouncement) {
        throw new DiscordApiError({
          status: 400,
          code: 50024,
          message: 'Cannot execute action on this channel type',
        });
      }
      const kind =
        body.type === ChannelType.PublicThread || body.type === ChannelType.AnnouncementThread
          ? 'public'
          : 'private';
      requireBotPermission(
        context,
        parent,
        kind === 'public'
          ? PermissionFlagsBits.CreatePublicThreads
          : PermissionFlagsBits.CreatePrivateThreads,
      );
      const thread = services.channels.createThread({
        parentId: parent.id,
        name,
        ownerId: botId,
        kind: parent.type === ChannelType.GuildAnnouncement ? 'announcement' : kind,
        invitable: body.invitable !== false,
      });
      return json(channelPayload(world, thread), 201);
    }),
    botRoute('POST', '/channels/:channelId/messages/:messageId/threads', (request) => {
      const parent = visibleChannel(context, request.params.channelId ?? '');
      const starter = world.message(parent.id, request.params.messageId ?? '');
      requireBotPermission(context, parent, PermissionFlagsBits.CreatePublicThreads);
      if (world.channels.has(starter.id)) {
        throw new DiscordApiError({
          status: 400,
          code: 160004,
          message: 'A thread has already been created for this message',
        });
      }
      const thread = services.channels.createThread({
        id: starter.id,
        parentId: parent.id,
        name: threadName(objectBody(request)),
        ownerId: botId,
        kind: parent.type === ChannelType.GuildAnnouncement ? 'announcement' : 'public',
      });
      return json(channelPayload(world, thread), 201);
    }),
    botRoute('PUT', '/channels/:channelId/thread-members/@me', (request) => {
      const thread = visibleChannel(context, request.params.channelId ?? '');
      if (!isThread(thread) || thread.thread === null) {
        throw new DiscordApiError({
          status: 400,
          code: 50024,
          message: 'Cannot execute action on this channel type',
        });
      }
      if (!thread.thread.memberIds.has(botId)) {
        thread.thread.memberIds.add(botId);
        context.gateway.dispatch({
          type: 'THREAD_MEMBERS_UPDATE',
          intent: 1,
          guildId: thread.guildId,
          build: () => ({
            id: thread.id,
            guild_id: thread.guildId,
            member_count: thread.thread?.memberIds.size ?? 0,
            added_members: [
              threadMemberPayload(thread, { userId: botId, joinedAt: world.clock.now() }),
            ],
          }),
        });
      }
      return NO_CONTENT;
    }),
    botRoute('DELETE', '/channels/:channelId/thread-members/@me', (request) => {
      const thread = visibleChannel(context, request.params.channelId ?? '');
      thread.thread?.memberIds.delete(botId);
      dispatchChannelEvent(context, { kind: 'update', channel: thread });
      return NO_CONTENT;
    }),
  ];
}
