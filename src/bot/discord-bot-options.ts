import type { Client } from 'discord.js';
import type { CacheLimits } from '../core/cache-limits.ts';
import type { Clock, RandomSource } from '../core/clock.ts';
import type { ControlBus } from '../core/control-bus.ts';
import type { Logger } from '../core/logger.ts';
import type { SpeechService } from '../core/speech.ts';
import type { BotMetrics } from '../core/metrics.ts';
import type { ToolExecutor } from '../core/tool.ts';
import type { Database } from '../db/database.ts';
import type { ProviderFactory } from '../providers/provider-factory.ts';
import type { SecretBox } from '../security/secret-box.ts';
import type { StreamOrchestratorDependencies } from '../stream/turn/stream-orchestrator.ts';
import type { ToolCatalog } from '../tools/tool-catalog.ts';
import type { SlashCommand } from './commands/slash-command.ts';
import type { DeliveryPort } from './delivery/delivery-port.ts';
import type { ProcessShards } from './sharding/channel-ownership.ts';
import type { Download } from './context/trigger-attachments.ts';
import type { VoiceChannelSettings } from './voice/voice-channels.ts';

/** What the composition root (src/main.ts) hands the bot. */
export interface DiscordBotOptions {
  client: Client;
  db: Database;
  /**
   * The database runs in this process (PGlite): its queries take this thread's time one after
   * another, so a turn's start read is not begun ahead at intake (nothing to overlap).
   */
  embeddedDatabase?: boolean | undefined;
  secretBox: SecretBox;
  providers: ProviderFactory;
  tools: ToolExecutor;
  /** Switchable tools and MCP states, for `/config tools` and `/doctor`. */
  toolCatalog: ToolCatalog;
  /** DEV_GUILD_ID: slash commands go to this guild only; otherwise they are global. */
  commandGuildId?: string | undefined;
  /** How often channels' rolling summaries are updated (SUMMARY_EVERY_TURNS). */
  summaryCadence?: { everyTurns?: number; keepRecent?: number };
  /** Replaces the slash commands (tests). */
  commands?: SlashCommand[];
  clock: Clock;
  random: RandomSource;
  logger: Logger;
  metrics?: BotMetrics;
  instanceId: string;
  ownerIds: readonly string[];
  /**
   * Control messages between the processes on this database (stops, settings changes, spent
   * tokens). Default: this process only.
   */
  bus?: ControlBus;
  /** A shard child's shards: it recovers only messages of channels on them. */
  shards?: ProcessShards | undefined;
  /** Whether the process that holds a claim still runs (the database's liveness locks). */
  isAlive(instanceId: string): Promise<boolean>;
  /** Whether a missing liveness lock proves a death now (not right after a server restart). */
  canJudgePeers(): Promise<boolean>;
  /** How long shutdown lets live turns finish before stopping them (SHUTDOWN_GRACE_MS). */
  shutdownGraceMs: number;
  /** How long an accepted message may wait for its reply to begin (MESSAGE_WAIT_LIMIT_MS). */
  messageWaitLimitMs: number;
  /** Overrides of the stream's tunables (tests). */
  streamOptions?: StreamOrchestratorDependencies['options'];
  download?: Download;
  /** The one write path to channels, shared with the tools' Discord actions. */
  delivery: DeliveryPort;
  /** Character turns one member message may set off in a scene (default 3). */
  sceneTurnLimit?: number | undefined;
  /** How much the bot remembers per channel, scope and member (CACHE_*); default DEFAULT_CACHE_LIMITS. */
  caches?: CacheLimits | undefined;
  /** Voice messages in and out (SPEECH_*); undefined: voice messages are not listened to. */
  speech?: SpeechService | undefined;
  /** Conversation in voice channels (VOICE_*, needs `speech`); undefined: off. */
  voiceChannels?: VoiceChannelSettings | undefined;
}
