import {
  Client,
  DefaultRestOptions,
  GatewayIntentBits,
  Partials,
  REST,
  SimpleShardingStrategy,
  type IIdentifyThrottler,
} from 'discord.js';
import { DEFAULT_CACHE_LIMITS, type CacheLimits } from '../../core/cache-limits.ts';
import type { ProcessShards } from '../../core/process-shards.ts';
import { discordCacheFactory, discordSweepers } from './discord-caches.ts';
import type { GatewayManager } from './gateway-monitor.ts';
import type { GlobalRequestPacer } from '../rest/global-request-pacer.ts';

export interface DiscordClientOptions {
  /** REST base, e.g. https://discord.com/api (DISCORD_API_URL). */
  apiUrl: string;
  /**
   * The shared REST proxy (DISCORD_REST_PROXY): every request but interaction answers goes
   * there instead of `apiUrl`. undefined: straight to Discord.
   */
  restProxyUrl?: string | undefined;
  /**
   * Paces every request but interaction answers (which Discord exempts from the global limit).
   * undefined behind a REST proxy: the proxy holds the bot's one global budget.
   */
  pacer?: GlobalRequestPacer | undefined;
  /**
   * Discord's global limit of the bot (DISCORD_GLOBAL_RATE_LIMIT, default 50). discord.js
   * holds every request to it on its own as well, so a raised limit must reach it too.
   */
  globalRequestsPerSecond?: number | undefined;
  /** Sees the gateway manager once discord.js builds it (close codes, sessions). */
  observeGateway?: (manager: GatewayManager) => void;
  /** The shards this process connects (a shard child of the manager); default: one, unsharded. */
  shards?: ProcessShards | undefined;
  /**
   * Replaces discord.js's per-process IDENTIFY pacing (a shard child: paced bot-wide through
   * the database), given Discord's `max_concurrency`.
   */
  identifyThrottler?: ((maxConcurrency: number) => IIdentifyThrottler) | undefined;
  /** The memory bounds of discord.js's caches (DISCORD_CACHE_*); default DEFAULT_CACHE_LIMITS. */
  caches?: CacheLimits | undefined;
  /** Voice channels on (VOICE_CHANNELS): voice state events and their cache. */
  voiceChannels?: boolean | undefined;
}

/** Interaction callbacks and their webhooks: not in the bot's global budget, and due in 3 s. */
const EXEMPT_FROM_GLOBAL_LIMIT = /\/(interactions|webhooks)\//;

/**
 * Where one REST request goes: interaction answers straight to Discord (exempt from the global
 * limit, and a queue in front of them could miss their 3 s deadline), the rest through the
 * proxy when there is one.
 */
export function restRequestUrl(
  url: string,
  routing: { apiUrl: string; restProxyUrl?: string | undefined },
): string {
  if (routing.restProxyUrl === undefined || EXEMPT_FROM_GLOBAL_LIMIT.test(url)) return url;
  if (!url.startsWith(routing.apiUrl)) return url;
  return routing.restProxyUrl + url.slice(routing.apiUrl.length);
}

/**
 * The discord.js client with the intents the bot needs: guild messages and their content
 * (privileged: enable "Message Content Intent" in the developer portal), DMs (which also need
 * the Channel partial, since DM channels are not cached before their first message), reactions
 * and typing for the stop registry.
 */
export function createDiscordClient(options: DiscordClientOptions): Client {
  const { pacer, identifyThrottler } = options;
  const routing = { apiUrl: options.apiUrl, restProxyUrl: options.restProxyUrl };
  return new Client({
    intents: [
      GatewayIntentBits.Guilds,
      GatewayIntentBits.GuildMessages,
      GatewayIntentBits.MessageContent,
      GatewayIntentBits.GuildMessageReactions,
      GatewayIntentBits.GuildEmojisAndStickers,
      GatewayIntentBits.DirectMessages,
      ...(options.voiceChannels === true ? [GatewayIntentBits.GuildVoiceStates] : []),
    ],
    partials: [Partials.Channel, Partials.Message],
    rest: {
      api: options.apiUrl,
      ...(options.globalRequestsPerSecond === undefined
        ? {}
        : { globalRequestsPerSecond: options.globalRequestsPerSecond }),
      makeRequest: async (url, init) => {
        if (pacer !== undefined && !EXEMPT_FROM_GLOBAL_LIMIT.test(url)) await pacer.acquire();
        return DefaultRestOptions.makeRequest(restRequestUrl(url, routing), init);
      },
    },
    allowedMentions: { parse: [], repliedUser: false },
    makeCache: discordCacheFactory(options.caches ?? DEFAULT_CACHE_LIMITS, {
      voiceStates: options.voiceChannels === true,
    }),
    sweepers: discordSweepers(),
    ...(options.shards === undefined
      ? {}
      : { shards: [...options.shards.shardIds], shardCount: options.shards.shardCount }),
    ws: {
      buildStrategy: (manager) => {
        options.observeGateway?.(manager);
        return new SimpleShardingStrategy(manager);
      },
      ...(identifyThrottler === undefined
        ? {}
        : {
            buildIdentifyThrottler: async (manager) => {
              const gateway = await manager.fetchGatewayInformation();
              return identifyThrottler(gateway.session_start_limit.max_concurrency);
            },
          }),
    },
  });
}

/**
 * A REST for the channel webhooks' own routes (execute, edit and delete of their messages) that
 * never retries a request by itself: discord.js retries a 5xx or a cut connection at once, and
 * an execute carries no nonce, so a retried one whose first attempt was posted would post twice.
 * The delivery port retries instead, after looking for the lost message. Same base URL and
 * request function as the client's (webhook routes go straight to Discord); no token: they are
 * authenticated by the webhook's.
 */
export function webhookRestOf(client: Client): REST {
  return new REST({ ...client.rest.options, retries: 0 });
}
