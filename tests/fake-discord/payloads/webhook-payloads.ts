import { WebhookType, type APIWebhook } from 'discord-api-types/v10';
import type { WebhookRecord } from '../state/records.ts';
import type { World } from '../state/world.ts';
import { userPayload } from './user-payloads.ts';

/** A channel webhook as API v10 shapes it; the token is shown to whoever manages webhooks. */
export function webhookPayload(world: World, webhook: WebhookRecord): APIWebhook {
  const creator = world.users.get(webhook.creatorId);
  return {
    id: webhook.id,
    type: WebhookType.Incoming,
    guild_id: webhook.guildId,
    channel_id: webhook.channelId,
    name: webhook.name,
    avatar: webhook.avatar,
    token: webhook.token,
    application_id: webhook.applicationId,
    ...(creator === undefined ? {} : { user: userPayload(creator) }),
  };
}
