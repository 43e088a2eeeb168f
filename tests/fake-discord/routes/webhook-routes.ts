import { PermissionFlagsBits } from 'discord-api-types/v10';
import type { RouteDefinition, RouteRequest, RouteResult } from '../http/router.ts';
import { messagePayload } from '../payloads/message-payloads.ts';
import { webhookPayload } from '../payloads/webhook-payloads.ts';
import { DiscordApiError } from '../rules/discord-error.ts';
import {
  rateLimitHeaders,
  retryAfterHeader,
  seconds,
  type BucketDecision,
} from '../rules/rate-limiter.ts';
import type { FakeDiscordContext } from '../services/fake-discord-context.ts';
import type { WebhookService } from '../services/webhook-service.ts';
import type { MessageRecord, WebhookRecord } from '../state/records.ts';
import {
  botRoute,
  json,
  NO_CONTENT,
  objectBody,
  requireBotPermission,
  visibleChannel,
} from './route-helpers.ts';

/**
 * Channel webhooks. With the bot's token: create and list in a channel, get and delete one.
 * With the webhook's token (no authorization, outside the global limit): execute (`wait`,
 * `thread_id`, `thread_name`), and get, edit and delete its messages. Executes and edits count
 * against the webhook's bucket and then the channel's bucket shared by all its webhooks; each
 * response carries the headers of whichever of the two has fewer requests left.
 */
export function webhookRoutes(
  context: FakeDiscordContext,
  webhooks: WebhookService,
): RouteDefinition[] {
  const { world } = context;
  const withToken = (request: RouteRequest) =>
    webhooks.withToken(request.params.webhookId ?? '', request.params.token ?? '');
  const threadId = (request: RouteRequest) => request.query.get('thread_id');
  const reply = (message: MessageRecord) =>
    json(messagePayload(context.payloads, message, { forGateway: false }));
  const tokenRoute = (
    method: RouteDefinition['method'],
    pattern: string,
    handle: (request: RouteRequest) => RouteResult,
  ): RouteDefinition => ({
    method,
    pattern,
    auth: 'none',
    globalLimit: false,
    accepts: (params) => params.webhookId !== world.bot.applicationId,
    bucket: { definition: context.options.buckets.webhook, resourceParameter: 'webhookId' },
    handle,
  });
  const webhookMessage = '/webhooks/:webhookId/:token/messages/:messageId';

  return [
    botRoute('POST', '/channels/:channelId/webhooks', (request) => {
      const channel = visibleChannel(context, request.params.channelId ?? '');
      const body = objectBody(request);
      const webhook = webhooks.create({
        channelId: channel.id,
        creatorId: world.bot.userId,
        name: body.name,
        avatar: body.avatar,
      });
      return json(webhookPayload(world, webhook));
    }),
    botRoute('GET', '/channels/:channelId/webhooks', (request) => {
      const channel = visibleChannel(context, request.params.channelId ?? '');
      requireBotPermission(context, channel, PermissionFlagsBits.ManageWebhooks);
      return json(webhooks.list(channel.id).map((webhook) => webhookPayload(world, webhook)));
    }),
    botRoute('GET', '/webhooks/:webhookId', (request) => {
      const webhook = world.webhook(request.params.webhookId ?? '');
      requireBotPermission(
        context,
        world.channel(webhook.channelId),
        PermissionFlagsBits.ManageWebhooks,
      );
      return json(webhookPayload(world, webhook));
    }),
    botRoute('DELETE', '/webhooks/:webhookId', (request) => {
      webhooks.delete({ webhookId: request.params.webhookId ?? '', actorId: world.bot.userId });
      return NO_CONTENT;
    }),
    tokenRoute('DELETE', '/webhooks/:webhookId/:token', (request) => {
      const webhook = withToken(request);
      world.webhooks.delete(webhook.id);
      return NO_CONTENT;
    }),
    tokenRoute('POST', '/webhooks/:webhookId/:token', (request) => {
      const webhook = withToken(request);
      const headers = takeChannelBucket(context, webhook);
      const message = webhooks.execute(webhook, {
        body: objectBody(request),
        files: request.files,
        threadId: threadId(request),
      });
      if (request.query.get('wait') !== 'true') return { ...NO_CONTENT, headers };
      return { ...reply(message), headers };
    }),
    tokenRoute('GET', webhookMessage, (request) =>
      reply(
        webhooks.message(withToken(request), {
          messageId: request.params.messageId ?? '',
          threadId: threadId(request),
        }),
      ),
    ),
    tokenRoute('PATCH', webhookMessage, (request) => {
      const webhook = withToken(request);
      const headers = takeChannelBucket(context, webhook);
      const message = webhooks.editMessage(webhook, {
        messageId: request.params.messageId ?? '',
        threadId: threadId(request),
        body: objectBody(request),
        files: request.files,
      });
      return { ...reply(message), headers };
    }),
    tokenRoute('DELETE', webhookMessage, (request) => {
      webhooks.deleteMessage(withToken(request), {
        messageId: request.params.messageId ?? '',
        threadId: threadId(request),
      });
      return NO_CONTENT;
    }),
  ];
}

/**
 * Counts a write against the channel's bucket shared by all its webhooks (a 429 when spent) and
 * returns its headers when it is tighter than the webhook's own, so a client paces on either.
 */
function takeChannelBucket(
  context: FakeDiscordContext,
  webhook: WebhookRecord,
): Record<string, string> {
  const { rateLimiter, options } = context;
  const shared = rateLimiter.take(options.buckets.webhookChannel, webhook.channelId);
  if (!shared.allowed) throw channelLimited(shared, rateLimiter.timeScale);
  const own = rateLimiter.peek(options.buckets.webhook, webhook.id);
  return shared.remaining < own.remaining ? rateLimitHeaders(shared) : {};
}

function channelLimited(decision: BucketDecision, timeScale: number): DiscordApiError {
  return new DiscordApiError({
    status: 429,
    code: 0,
    message: 'You are being rate limited.',
    headers: {
      ...rateLimitHeaders(decision),
      'retry-after': retryAfterHeader(decision.resetAfterMs, timeScale),
      'x-ratelimit-scope': 'user',
    },
    extraBody: { retry_after: seconds(decision.resetAfterMs), global: false },
  });
}
