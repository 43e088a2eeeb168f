import {
  Client,
  DefaultRestOptions,
  GatewayIntentBits,
  Partials,
  SimpleShardingStrategy,
  type IIdentifyThrottler,
} from 'discord.js';
import type { ProcessShards } from '../core/process-shards.ts';
import type { GatewayManager } from './gateway-monitor.ts';
import type { GlobalRequestPacer } from './global-request-pacer.ts';

export interface DiscordClientOptions {
  /** REST base, e.g. https://discord.com/api (DISCORD_API_URL). */
  apiUrl: string;
  /** Paces every request but interaction answers (which Discord exempts from the global limit). */
  pacer: GlobalRequestPacer;
  /** Sees the gateway manager once discord.js builds it (close codes, sessions). */
  observeGateway?: (manager: GatewayManager) => void;
  /** The shards this process connects (a shard child of the manager); default: one, unsharded. */
  shards?: ProcessShards | undefined;
  /**
   * Replaces discord.js's per-process IDENTIFY pacing (a shard child: paced bot-wide through
   * the database), given Discord's `max_concurrency`.
   */
  identifyThrottler?: ((maxConcurrency: number) => IIdentifyThrottler) | undefined;
}

/** Interaction callbacks and their webhooks: not in the bot's global budget, and due in 3 s. */
const EXEMPT_FROM_GLOBAL_LIMIT = /\/(interactions|webhooks)\//;

/**
 * The discord.js client with the intents the bot needs: guild messages and their content
 * (privileged: enable "Message Content Intent" in the developer portal), DMs (which also need
 * the Channel partial, since DM channels are not cached before their first message), reactions
 * and typing for the stop registry.
 */
export function createDiscordClient(options: DiscordClientOptions): Client {
  const { pacer, identifyThrottler } = options;
  return new Client({
    intents: [
      GatewayIntentBits.Guilds,
      GatewayIntentBits.GuildMessages,
      GatewayIntentBits.MessageContent,
      GatewayIntentBits.GuildMessageReactions,
      GatewayIntentBits.GuildEmojisAndStickers,
      GatewayIntentBits.DirectMessages,
    ],
    partials: [Partials.Channel, Partials.Message],
    rest: {
      api: options.apiUrl,
      makeRequest: async (url, init) => {
        if (!EXEMPT_FROM_GLOBAL_LIMIT.test(url)) await pacer.acquire();
        return DefaultRestOptions.makeRequest(url, init);
      },
    },
    allowedMentions: { parse: [], repliedUser: false },
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
