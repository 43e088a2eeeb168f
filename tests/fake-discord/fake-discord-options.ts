import type { LoopbackVoiceOptions } from './voice/loopback-voice-server.ts';
import { GatewayIntentBits } from 'discord-api-types/v10';
import { systemClock, type Clock } from '../../src/core/clock.ts';
import { DEFAULT_WAIT_TIMEOUT_MS } from './events/event-hub.ts';
import type { BucketDefinition } from './rules/rate-limiter.ts';

/** The per-route buckets the fake enforces, by name. */
export type BucketName =
  | 'messageWrite'
  | 'messageDelete'
  | 'typing'
  | 'reaction'
  | 'interactionWebhook'
  | 'webhook'
  | 'webhookChannel'
  | 'oldMessageEdit';

export interface FakeDiscordOptions {
  /**
   * Multiplies every rate-limit window (per-route buckets, the global 1 s, the 30046 window).
   * 1 (default) is Discord's timing; 0.05 runs a 5-per-5-s bucket as 5 per 250 ms.
   */
  rateLimitTimeScale?: number;
  /** Time source for timestamps, windows and deadlines. Default: the system clock. */
  clock?: Clock;
  /** HELLO's heartbeat_interval. Default 41 250 ms, as Discord sends. */
  heartbeatIntervalMs?: number;
  /** The bot token the server accepts. Default: a fixed fake token. */
  token?: string;
  botUsername?: string;
  /** Privileged intents "enabled in the developer portal". Default: MessageContent only. */
  privilegedIntents?: readonly ('MessageContent' | 'GuildMembers' | 'GuildPresences')[];
  /** An interaction must be answered within this (Discord: 3 s). */
  interactionResponseDeadlineMs?: number;
  /** Interaction tokens (webhook routes) live this long (Discord: 15 min). */
  interactionTokenLifetimeMs?: number;
  /** A typing indicator lasts this long unless the typist posts (Discord: 10 s). */
  typingDurationMs?: number;
  /** Messages older than `ageMs` may be edited only `limit` times per `windowMs` per channel (30046). */
  oldMessageEdits?: { ageMs: number; limit: number; windowMs: number };
  /** Override a bucket's limit or window (windows are then scaled by rateLimitTimeScale). */
  buckets?: Partial<Record<BucketName, { limit: number; windowMs: number }>>;
  /**
   * The bot's global limit: `globalRequestsPerSecond` (default 50) per one-second window, counted
   * per token across every connection and process, interaction endpoints exempt. On by default.
   */
  globalLimit?: boolean;
  globalRequestsPerSecond?: number;
  /** `GET /gateway/bot`'s recommended `shards`. Default 1. */
  recommendedShards?: number;
  /**
   * `GET /gateway/bot`'s `session_start_limit.max_concurrency`: IDENTIFYs allowed per 5 s (one per
   * rate-limit key `shard_id % max_concurrency`). Default 1. The fake records every IDENTIFY
   * (`gateway.identifies()`) so a test checks the pacing; it does not refuse a fast one.
   */
  maxConcurrency?: number;
  /**
   * Scale of the global one-second window. Default `rateLimitTimeScale`; 1 keeps Discord's real
   * 50/s while per-route buckets run scaled down (what multi-process load tests need).
   */
  globalLimitTimeScale?: number;
  /**
   * Send CHANNEL_CREATE when a DM channel is opened. Discord stopped doing so in API v8 (bots
   * need the Channel partial instead), so it is off by default.
   */
  dispatchDirectMessageChannelCreate?: boolean;
  /**
   * The deadline of `waits.*` that do not set their own. Default 10 s; suites that drive a
   * separate bot process on a busy machine give it more (a ceiling, never a sleep).
   */
  waitTimeoutMs?: number;
  /** The loopback voice servers' behaviour (DAVE offered or not, heartbeat interval). */
  voice?: LoopbackVoiceOptions;
}

export interface ResolvedOptions {
  rateLimitTimeScale: number;
  clock: Clock;
  heartbeatIntervalMs: number;
  token: string;
  botUsername: string;
  privilegedIntents: number;
  interactionResponseDeadlineMs: number;
  interactionTokenLifetimeMs: number;
  typingDurationMs: number;
  oldMessageEdits: { ageMs: number; limit: number; windowMs: number };
  buckets: Record<BucketName, BucketDefinition>;
  globalLimit: boolean;
  globalRequestsPerSecond: number;
  recommendedShards: number;
  maxConcurrency: number;
  globalLimitTimeScale: number;
  dispatchDirectMessageChannelCreate: boolean;
  waitTimeoutMs: number;
  voice: LoopbackVoiceOptions;
}

const HOUR_MS = 3_600_000;

/**
 * Discord's figures. The 5-per-5-s message bucket is the observed per-channel limit; the
 * old-message edit limit is undocumented (bot authors report about 3 per 20 s per channel).
 */
const DEFAULT_BUCKETS: Record<BucketName, { limit: number; windowMs: number }> = {
  messageWrite: { limit: 5, windowMs: 5_000 },
  messageDelete: { limit: 5, windowMs: 1_000 },
  typing: { limit: 5, windowMs: 5_000 },
  reaction: { limit: 1, windowMs: 250 },
  interactionWebhook: { limit: 5, windowMs: 2_000 },
  // Executes and edits through one webhook; then every webhook of a channel together.
  webhook: { limit: 5, windowMs: 2_000 },
  webhookChannel: { limit: 30, windowMs: 60_000 },
  oldMessageEdit: { limit: 3, windowMs: 20_000 },
};

export const DEFAULT_TOKEN = 'ZmFrZS1ib3QtdG9rZW4.fake-discord.loopback-only-token';

export function resolveOptions(options: FakeDiscordOptions = {}): ResolvedOptions {
  const buckets = Object.fromEntries(
    (Object.keys(DEFAULT_BUCKETS) as BucketName[]).map((name) => {
      const figures = options.buckets?.[name] ?? DEFAULT_BUCKETS[name];
      return [name, { name, ...figures }];
    }),
  ) as Record<BucketName, BucketDefinition>;
  const oldMessageEdits = options.oldMessageEdits ?? {
    ageMs: HOUR_MS,
    ...DEFAULT_BUCKETS.oldMessageEdit,
  };
  buckets.oldMessageEdit = {
    name: 'oldMessageEdit',
    limit: oldMessageEdits.limit,
    windowMs: oldMessageEdits.windowMs,
  };
  return {
    rateLimitTimeScale: options.rateLimitTimeScale ?? 1,
    voice: options.voice ?? {},
    clock: options.clock ?? systemClock,
    heartbeatIntervalMs: options.heartbeatIntervalMs ?? 41_250,
    token: options.token ?? DEFAULT_TOKEN,
    botUsername: options.botUsername ?? 'Tomodachi',
    privilegedIntents: (options.privilegedIntents ?? ['MessageContent']).reduce(
      (all, name) => all | GatewayIntentBits[name],
      0,
    ),
    interactionResponseDeadlineMs: options.interactionResponseDeadlineMs ?? 3_000,
    interactionTokenLifetimeMs: options.interactionTokenLifetimeMs ?? 15 * 60_000,
    typingDurationMs: options.typingDurationMs ?? 10_000,
    oldMessageEdits,
    buckets,
    globalLimit: options.globalLimit ?? true,
    globalRequestsPerSecond: options.globalRequestsPerSecond ?? 50,
    recommendedShards: options.recommendedShards ?? 1,
    maxConcurrency: options.maxConcurrency ?? 1,
    globalLimitTimeScale: options.globalLimitTimeScale ?? options.rateLimitTimeScale ?? 1,
    dispatchDirectMessageChannelCreate: options.dispatchDirectMessageChannelCreate ?? false,
    waitTimeoutMs: options.waitTimeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS,
  };
}
