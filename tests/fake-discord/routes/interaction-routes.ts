import type { RouteDefinition, RouteRequest, RouteResult } from '../http/router.ts';
import { messagePayload } from '../payloads/message-payloads.ts';
import type { FakeDiscordContext } from '../services/fake-discord-context.ts';
import type { InteractionService } from '../services/interaction-service.ts';
import type { MessageRecord } from '../state/records.ts';
import { json, NO_CONTENT, objectBody } from './route-helpers.ts';

/**
 * The interaction callback and the interaction webhook routes. None takes the bot token and
 * none counts against the global limit (Discord exempts interaction endpoints); the webhook
 * routes share one bucket per interaction token.
 */
export function interactionRoutes(
  context: FakeDiscordContext,
  interactions: InteractionService,
): RouteDefinition[] {
  const bucket = {
    definition: context.options.buckets.interactionWebhook,
    resourceParameter: 'token',
  };
  const route = (
    method: RouteDefinition['method'],
    pattern: string,
    handle: (request: RouteRequest) => RouteResult,
    withBucket = true,
  ): RouteDefinition => ({
    method,
    pattern,
    auth: 'none',
    globalLimit: false,
    // The application's id: channel webhooks share these paths under their own ids.
    accepts: (params) =>
      params.applicationId === undefined ||
      params.applicationId === context.world.bot.applicationId,
    handle,
    ...(withBucket ? { bucket } : {}),
  });
  const reply = (message: MessageRecord) =>
    json(messagePayload(context.payloads, message, { forGateway: false }));
  const record = (request: RouteRequest) =>
    interactions.byWebhook(request.params.applicationId ?? '', request.params.token ?? '');
  const webhookMessage = '/webhooks/:applicationId/:token/messages/:messageId';

  return [
    route(
      'POST',
      '/interactions/:interactionId/:token/callback',
      (request) =>
        interactions.callback({
          interactionId: request.params.interactionId ?? '',
          token: request.params.token ?? '',
          body: request.body,
          files: request.files,
          withResponse: request.query.get('with_response') === 'true',
        }),
      false,
    ),
    route('GET', webhookMessage, (request) =>
      reply(interactions.webhookMessage(record(request), request.params.messageId ?? '')),
    ),
    route('PATCH', webhookMessage, (request) =>
      reply(
        interactions.editWebhookMessage(record(request), {
          messageId: request.params.messageId ?? '',
          body: objectBody(request),
          files: request.files,
        }),
      ),
    ),
    route('DELETE', webhookMessage, (request) => {
      interactions.deleteWebhookMessage(record(request), request.params.messageId ?? '');
      return NO_CONTENT;
    }),
    route('POST', '/webhooks/:applicationId/:token', (request) => {
      const message = interactions.followUp(record(request), {
        body: objectBody(request),
        files: request.files,
      });
      // Interaction follow-ups always behave as `wait=true`.
      return reply(message);
    }),
  ];
}
