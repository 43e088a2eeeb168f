import { RESTEvents, type Client, type Interaction } from 'discord.js';
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { BotMetrics } from '../core/metrics.ts';
import type { ChannelHistory } from './context/channel-history.ts';
import { readBucket, type WriteBudgets } from './delivery/write-budgets.ts';
import { reportDiscordResponses } from './client/discord-rest-metrics.ts';
import { guardEvent } from './client/gateway-tolerance.ts';
import type { MessageRouter } from './intake/message-router.ts';
import { attachSessionBackfill } from './recovery/session-backfill-wiring.ts';

const MESSAGE_ROUTE = /^\/channels\/(\d+)\/messages(?:\/\d+)?$/;

export interface BotEventWiring {
  client: Client;
  clock: Clock;
  logger: Logger;
  metrics: BotMetrics;
  budgets: WriteBudgets;
  history: ChannelHistory;
  /** The router once the client is ready; events before it are dropped. */
  router: () => MessageRouter | undefined;
  onInteraction(interaction: Interaction): Promise<void>;
}

/**
 * The gateway's message, channel and interaction events to their handlers, and Discord's
 * rate-limit headers (every message response, every 429) to the channels' write budgets.
 */
export function attachBotEvents(wiring: BotEventWiring): void {
  const { client, logger, budgets, router } = wiring;
  client.on('messageCreate', (message) => router()?.onMessageCreate(message));
  // A payload our handlers cannot read (a compatible server's nulls) costs that event only.
  client.on(
    'messageUpdate',
    guardEvent('messageUpdate', logger, (old, message) => router()?.onMessageUpdate(old, message)),
  );
  client.on(
    'messageDelete',
    guardEvent('messageDelete', logger, (message) => router()?.onMessageDelete(message)),
  );
  client.on(
    'channelDelete',
    guardEvent('channelDelete', logger, (channel) => wiring.history.forgetChannel(channel.id)),
  );
  attachSessionBackfill({
    client,
    clock: wiring.clock,
    logger,
    deliver: (message) => {
      router()?.onMessageCreate(message);
      return Promise.resolve();
    },
  });
  client.on(
    'interactionCreate',
    guardEvent('interactionCreate', logger, (interaction) => wiring.onInteraction(interaction)),
  );
  client.rest.on(RESTEvents.Response, (request, response) => {
    const channelId = MESSAGE_ROUTE.exec(request.path)?.[1];
    if (channelId === undefined) return;
    const bucket = readBucket(response.headers);
    if (bucket !== undefined) budgets.observe(channelId, bucket);
  });
  reportDiscordResponses(client, wiring.metrics);
  client.rest.on(RESTEvents.RateLimited, (info) => {
    if (info.route.startsWith('/channels/:id/messages')) {
      budgets.observeRateLimited(info.majorParameter, info.timeToReset);
    }
  });
  client.on('error', (error) => logger.error({ err: error }, 'Discord client error'));
}
