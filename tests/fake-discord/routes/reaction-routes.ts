import type { RouteDefinition } from '../http/router.ts';
import { userPayload } from '../payloads/user-payloads.ts';
import type { FakeDiscordContext } from '../services/fake-discord-context.ts';
import type { ReactionService } from '../services/reaction-service.ts';
import { botRoute, json, NO_CONTENT, visibleChannel } from './route-helpers.ts';

/** Reactions by the bot (add/remove its own, remove someone's, list who reacted). */
export function reactionRoutes(
  context: FakeDiscordContext,
  reactions: ReactionService,
): RouteDefinition[] {
  const { world } = context;
  const bucket = { definition: context.options.buckets.reaction, resourceParameter: 'channelId' };
  const base = '/channels/:channelId/messages/:messageId/reactions/:emoji';
  return [
    botRoute(
      'PUT',
      `${base}/@me`,
      (request) => {
        visibleChannel(context, request.params.channelId ?? '');
        reactions.add({
          channelId: request.params.channelId ?? '',
          messageId: request.params.messageId ?? '',
          userId: world.bot.userId,
          emoji: request.params.emoji ?? '',
        });
        return NO_CONTENT;
      },
      bucket,
    ),
    botRoute(
      'DELETE',
      `${base}/:userId`,
      (request) => {
        visibleChannel(context, request.params.channelId ?? '');
        const userId =
          request.params.userId === '@me' ? world.bot.userId : (request.params.userId ?? '');
        reactions.remove({
          channelId: request.params.channelId ?? '',
          messageId: request.params.messageId ?? '',
          emoji: request.params.emoji ?? '',
          userId,
          actorId: world.bot.userId,
        });
        return NO_CONTENT;
      },
      bucket,
    ),
    botRoute('GET', base, (request) => {
      visibleChannel(context, request.params.channelId ?? '');
      const userIds = reactions.users({
        channelId: request.params.channelId ?? '',
        messageId: request.params.messageId ?? '',
        emoji: request.params.emoji ?? '',
      });
      return json(userIds.map((id) => userPayload(world.user(id))));
    }),
  ];
}
