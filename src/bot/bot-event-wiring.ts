import { RESTEvents, type Client, type REST } from 'discord.js';
import { DEFAULT_CACHE_LIMITS, type CacheLimits } from '../core/cache-limits.ts';
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { BotMetrics } from '../core/metrics.ts';
import type { Database } from '../db/database.ts';
import { reportDiscordResponses } from './client/discord-rest-metrics.ts';
import { guardEvent } from './client/gateway-tolerance.ts';
import type { CommandRouter } from './commands/command-router.ts';
import type { ChannelHistory } from './context/channel-history.ts';
import { webhookBudgetKey, type ChannelWebhooks } from './delivery/channel-webhooks.ts';
import type { DeliveryPort } from './delivery/delivery-port.ts';
import { readBucket, type WriteBudgets } from './delivery/write-budgets.ts';
import type { MessageRouter } from './intake/message-router.ts';
import type { DatabaseStep } from './intake/outage-hold.ts';
import { handleInteraction } from './interaction-handler.ts';
import { attachSessionBackfill } from './recovery/session-backfill-wiring.ts';
import type { CrossProcessStops } from './stops/cross-process-stops.ts';
import type { VoiceChannels } from './voice/voice-channels.ts';

const MESSAGE_ROUTE = /^\/channels\/(\d+)\/messages(?:\/\d+)?$/;
/** A webhook's execute or message route (the token after the id is never read or logged). */
const WEBHOOK_ROUTE = /^\/webhooks\/(\d+)\/[^/]+(?:\/messages\/\d+)?$/;

export interface BotEventWiring {
  client: Client;
  /** Bounds the channels whose last message is tracked for a backfill. */
  caches?: CacheLimits | undefined;
  clock: Clock;
  logger: Logger;
  metrics?: BotMetrics | undefined;
  db: Database;
  instanceId: string;
  ownerIds: readonly string[];
  router: MessageRouter;
  history: ChannelHistory;
  delivery: DeliveryPort;
  /** The channels' managed webhooks: their writes' headers teach the webhook budgets. */
  webhooks?: ChannelWebhooks | undefined;
  commandRouter: CommandRouter;
  crossProcessStops: CrossProcessStops;
  databaseStep: DatabaseStep;
  /** Aborted at shutdown. */
  shutdown: AbortSignal;
  /** Voice calls (VOICE_CHANNELS): voice state changes, and who talked with the bot. */
  voice?: VoiceChannels | undefined;
}

/** What the bot's shutdown still needs from the wiring. */
export interface AttachedBotEvents {
  /**
   * Writes the channels' last message seen for the last time (the next start backfills from
   * it): called when intake closes.
   */
  closeActivity(): Promise<void>;
}

/**
 * The gateway's message, channel and interaction events to their handlers, and Discord's
 * rate-limit headers (every message response, every 429) to the channels' write budgets.
 * Attached once the client is ready: every later session is a fresh one to backfill, and so is
 * the time the process was down (channel activity read back from the database).
 */
export function attachBotEvents(wiring: BotEventWiring): AttachedBotEvents {
  const { client, logger, router, history } = wiring;
  client.on('messageCreate', (message) => router.onMessageCreate(message));
  const { voice } = wiring;
  if (voice !== undefined) {
    client.on(
      'messageCreate',
      guardEvent('messageCreate', logger, (message) => voice.noteMessage(message)),
    );
    client.on(
      'voiceStateUpdate',
      guardEvent('voiceStateUpdate', logger, (previous, state) =>
        voice.onVoiceStateUpdate(previous, state),
      ),
    );
  }
  // A payload our handlers cannot read (a compatible server's nulls) costs that event only.
  client.on(
    'messageUpdate',
    guardEvent('messageUpdate', logger, (old, message) => router.onMessageUpdate(old, message)),
  );
  client.on(
    'messageDelete',
    guardEvent('messageDelete', logger, (message) => router.onMessageDelete(message)),
  );
  client.on(
    'channelDelete',
    guardEvent('channelDelete', logger, (channel) => history.forgetChannel(channel.id)),
  );
  const { persistence } = attachSessionBackfill({
    client,
    trackedChannels: (wiring.caches ?? DEFAULT_CACHE_LIMITS).channels,
    clock: wiring.clock,
    logger,
    persist: { db: wiring.db, shutdown: wiring.shutdown },
    deliver: (message) => {
      router.onMessageCreate(message);
      return Promise.resolve();
    },
  });
  client.on(
    'interactionCreate',
    guardEvent('interactionCreate', logger, (interaction) =>
      handleInteraction(interaction, { ...wiring, stops: wiring.crossProcessStops }),
    ),
  );
  observeRateLimits(client.rest, wiring.delivery.budgets, wiring.webhooks);
  if (wiring.metrics !== undefined) reportDiscordResponses(client, wiring.metrics);
  return { closeActivity: () => persistence?.close() ?? Promise.resolve() };
}

/**
 * Every message response's rate-limit headers, and every 429, teach the channel's budget; a
 * channel webhook's teach the budget its writes share (`webhookBudgetKey`) — on the bot's REST
 * and on the webhooks' own (`ChannelWebhooks.webhookRest`).
 */
export function observeRateLimits(
  rest: REST,
  budgets: WriteBudgets,
  webhooks: ChannelWebhooks | undefined,
): void {
  const budgetOf = (path: string): string | undefined => {
    const channelId = MESSAGE_ROUTE.exec(path)?.[1];
    if (channelId !== undefined) return channelId;
    const webhookId = WEBHOOK_ROUTE.exec(path)?.[1];
    const webhookChannel = webhookId === undefined ? undefined : webhooks?.channelOf(webhookId);
    return webhookChannel === undefined ? undefined : webhookBudgetKey(webhookChannel);
  };
  const observed = new Set([rest, webhooks?.webhookRest ?? rest]);
  for (const each of observed) {
    each.on(RESTEvents.Response, (request, response) => {
      const key = budgetOf(request.path);
      if (key === undefined) return;
      const bucket = readBucket(response.headers);
      if (bucket !== undefined) budgets.observe(key, bucket);
    });
    each.on(RESTEvents.RateLimited, (info) => {
      if (info.route.startsWith('/channels/:id/messages')) {
        budgets.observeRateLimited(info.majorParameter, info.timeToReset);
      } else if (info.route.startsWith('/webhooks/:id')) {
        const webhookChannel = webhooks?.channelOf(info.majorParameter);
        if (webhookChannel !== undefined) {
          budgets.observeRateLimited(webhookBudgetKey(webhookChannel), info.timeToReset);
        }
      }
    });
  }
}
