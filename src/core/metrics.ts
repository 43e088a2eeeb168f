/**
 * The metrics port: what every layer reports, in its own words, without knowing Prometheus.
 * `src/metrics/prometheus-metrics.ts` implements it; `noMetrics` drops everything (tests, bench).
 * Labels stay bounded: never a user, channel or guild id.
 */
export interface TurnSample {
  provider: string;
  model: string;
  /** The turn's final status: complete | stopped | failed. */
  status: string;
  /** Null when no token arrived. */
  timeToFirstTokenMs: number | null;
  durationMs: number;
  inputTokens: number;
  outputTokens: number;
}

export interface ToolCallSample {
  /** The registry name; `unknown` for a name no source offers (the model made it up). */
  tool: string;
  /** ok | error | timeout | aborted */
  status: string;
  durationMs: number;
}

/** Which limit a Discord 429 was for: a route bucket, the bot's global limit, or a shared resource. */
export type RateLimitScope = 'route' | 'global' | 'shared';

/** One response Discord gave to a REST request of the bot. */
export interface DiscordResponseSample {
  method: string;
  /** discord.js's route template (`/channels/:id/messages`); reduced to a kind before labelling. */
  route: string;
  status: number;
  /** On a 429: `X-RateLimit-Scope` (user → route), or global when `X-RateLimit-Global` is set. */
  rateLimitScope?: RateLimitScope;
}

export type StopKind = 'phrase' | 'command';

export type ReminderEvent = 'due' | 'delivered' | 'retried' | 'failed';

export interface DatabaseQuerySample {
  /** select | insert | update | delete | other (the statement's first keyword). */
  operation: string;
  durationMs: number;
  ok: boolean;
}

/** Read at scrape time, so the gauges never drift from the scheduler's own state. */
export interface TurnLoad {
  /** Channels with a turn in progress (one live stream each). */
  live: number;
  /** Triggers waiting behind a live turn. */
  queued: number;
}

export interface BotMetrics {
  turnFinished(turn: TurnSample): void;
  toolCall(call: ToolCallSample): void;
  discordResponse(response: DiscordResponseSample): void;
  typingSkipped(): void;
  /** From the stop request to the end of the stopped stream. */
  stopLatency(stop: { kind: StopKind; milliseconds: number }): void;
  databaseQuery(query: DatabaseQuerySample): void;
  reminder(event: ReminderEvent, count?: number): void;
  observeTurnLoad(source: () => TurnLoad): void;
}

const ignore = (): void => undefined;

export const noMetrics: BotMetrics = {
  turnFinished: ignore,
  toolCall: ignore,
  discordResponse: ignore,
  typingSkipped: ignore,
  stopLatency: ignore,
  databaseQuery: ignore,
  reminder: ignore,
  observeTurnLoad: ignore,
};
