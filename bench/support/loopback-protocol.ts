/**
 * What the bench (parent, hosting the bot) and the loopback world (child process, hosting the
 * fake Discord and the LLM stand-in) say to each other over Node's IPC channel. Each call is
 * one request and one reply, matched by id.
 */

export type BenchDatabase = { kind: 'pglite'; dataDir: string } | { kind: 'postgres'; url: string };

export interface WorldSetup {
  /** Text channels, each with its own member, in the one bench guild (or dealt over `shards`). */
  channels: number;
  /**
   * Sharded worlds: one guild on each of this many shards (`(guild_id >> 22) % shards`), the
   * channels dealt to them round-robin, and `GET /gateway/bot` recommending this many shards
   * with a `max_concurrency` as large (every shard identifies at once). Default: one guild.
   */
  shards?: number;
  /**
   * Members in each channel (default 1); a channel's mentions take turns among them, round by
   * round, so a run of more rounds than the per-member rate limit (10 a minute) allows is
   * answered.
   */
  membersPerChannel?: number;
  /** The first `seededChannels` channels get `turnsPerChannel` stored turns each. */
  seededChannels: number;
  turnsPerChannel: number;
  /** The fake Discord's rate-limit windows (1 = Discord's). */
  rateLimitTimeScale: number;
  /** Where the stored turns go (migrated by the world before seeding). */
  database: BenchDatabase;
  /** The bot's global limit per real second (default Discord's 50, windows never scaled). */
  globalRequestsPerSecond?: number;
}

/**
 * A big bot's world (bench/bounded.bench.ts): `guilds` servers of `channelsPerGuild` text
 * channels, all sent to the bot as GUILD_CREATE; the members talk in the first `activeChannels`
 * channels, `members` of them spread evenly over those channels' servers.
 */
export interface BigWorldSetup {
  guilds: number;
  channelsPerGuild: number;
  activeChannels: number;
  members: number;
  /** The bot's global limit per real second (raised, as Discord does for big bots). */
  globalRequestsPerSecond: number;
}

/** Member messages that do not address the bot, sent at a steady rate over the active channels. */
export interface AmbientRound {
  messages: number;
  perSecond: number;
}

export interface BenchChannel {
  channelId: string;
  /** The channel's first member. */
  memberId: string;
  /** Every member of the channel, `memberId` first. */
  memberIds: string[];
}

export interface WorldInfo {
  apiUrl: string;
  token: string;
  botUserId: string;
  openAIBaseUrl: string;
  /** The first (or only) guild. */
  guildId: string;
  channels: BenchChannel[];
  storedTurns: number;
}

export interface MentionRound {
  /** Each channel's member @mentions the bot, all in the same tick. */
  channelIds: string[];
  /** The stand-in answers every request of this round with this many paragraphs, instantly. */
  paragraphs: number;
}

export interface RoundReport {
  /** Every 429 the fake answered since the observations were reset, any route. */
  rateLimited: number;
  /** Those 429s by "scope: METHOD last route segment", e.g. "global: POST typing". */
  rateLimitedBy: Record<string, number>;
  /** Creates and edits on each channel's messages routes, in `channelIds` order. */
  writesPerChannel: number[];
  /** Messages created in each channel (by the bot: only it writes), in `channelIds` order. */
  createsPerChannel: number[];
  /** Channels whose bot messages show every paragraph of the round's reply. */
  completeChannels: number;
}

/** Call name → its input and output. */
export interface WorldCalls {
  setup: { input: WorldSetup; output: WorldInfo };
  /** Resolves with each channel's latency (ms) from MESSAGE_CREATE to the bot's first write. */
  mention: { input: MentionRound; output: number[] };
  /** Like `mention`, but counts the channels that got no write by the deadline instead of failing. */
  answerRound: { input: MentionRound & { deadlineMs: number }; output: { lost: number } };
  /** The big bot's world; `channels` are the active ones, each with one of its members. */
  setupBigWorld: { input: BigWorldSetup; output: WorldInfo };
  /** Resolves once every message of the round was dispatched: how long sending took. */
  ambientRound: { input: AmbientRound; output: { sent: number; seconds: number } };
  /** When each gateway IDENTIFY arrived (epoch ms, Date.now in the world), oldest first. */
  identifies: { input: null; output: number[] };
  /** Global 429s the fake answered since the observations were reset. */
  globalLimitHits: { input: null; output: number };
  report: { input: { channelIds: string[]; paragraphs: number }; output: RoundReport };
  /** Forgets the request log and rate-limit windows (between rounds, with the bot idle). */
  resetObservations: { input: null; output: null };
  close: { input: null; output: null };
}

export type WorldCallName = keyof WorldCalls;

export interface WorldRequest<Name extends WorldCallName = WorldCallName> {
  id: number;
  call: Name;
  input: WorldCalls[Name]['input'];
}

export type WorldReply =
  { id: number; ok: true; output: unknown } | { id: number; ok: false; error: string };

/** The reply the stand-in streams: `count` distinct paragraphs (about 260 characters each). */
export function replyParagraphs(count: number): string[] {
  return Array.from(
    { length: count },
    (_, index) =>
      `Paragraph ${index + 1} of ${count}: ${'a calm sentence about the question, with a few more words to it. '.repeat(4).trim()}`,
  );
}
