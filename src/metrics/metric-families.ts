import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** Seconds; a reply's first token usually lands in 0.3–3 s, a whole turn in 1–60 s. */
const FIRST_TOKEN_BUCKETS = [0.1, 0.25, 0.5, 1, 2, 3, 5, 8, 13, 20, 30, 60];
const TURN_BUCKETS = [0.5, 1, 2, 3, 5, 8, 13, 20, 30, 45, 60, 120, 300];
const STOP_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5, 10];
const TOOL_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30];
const QUERY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/**
 * Every metric family the bot exports beyond prom-client's default process metrics. The names
 * are a public contract: deploy/grafana/tomodachi.json queries them and a test holds the two
 * together.
 */
export function createMetricFamilies(registry: Registry) {
  const registers = [registry];
  return {
    turns: new Counter({
      name: 'tomodachi_turns_total',
      help: 'Turns answered, by final status (complete, stopped, failed), provider and model',
      labelNames: ['status', 'provider', 'model'] as const,
      registers,
    }),
    firstToken: new Histogram({
      name: 'tomodachi_turn_first_token_seconds',
      help: 'Time from the start of a turn to the first token of the model',
      labelNames: ['provider', 'model'] as const,
      buckets: FIRST_TOKEN_BUCKETS,
      registers,
    }),
    turnDuration: new Histogram({
      name: 'tomodachi_turn_duration_seconds',
      help: 'Duration of a turn, from its start to its last Discord write',
      labelNames: ['provider', 'model'] as const,
      buckets: TURN_BUCKETS,
      registers,
    }),
    tokens: new Counter({
      name: 'tomodachi_tokens_total',
      help: 'Tokens the models read (input) and wrote (output)',
      labelNames: ['direction', 'provider', 'model'] as const,
      registers,
    }),
    liveTurns: new Gauge({
      name: 'tomodachi_turns_live',
      help: 'Turns in progress now: one live stream per busy channel',
      registers,
    }),
    queuedTurns: new Gauge({
      name: 'tomodachi_turns_queued',
      help: 'Triggers waiting behind a live turn in their channel',
      registers,
    }),
    discordRequests: new Counter({
      name: 'tomodachi_discord_requests_total',
      help: 'Discord REST responses, by what the request did and status class',
      labelNames: ['kind', 'status'] as const,
      registers,
    }),
    discordRateLimited: new Counter({
      name: 'tomodachi_discord_rate_limited_total',
      help: 'Discord 429 responses, by scope (route bucket, global, shared) and request kind',
      labelNames: ['scope', 'kind'] as const,
      registers,
    }),
    typingSkipped: new Counter({
      name: 'tomodachi_discord_typing_skipped_total',
      help: 'Typing indicators skipped to save the global request budget',
      registers,
    }),
    stopLatency: new Histogram({
      name: 'tomodachi_stop_latency_seconds',
      help: 'From a stop request (phrase, /stop, button) to the end of the stopped stream',
      labelNames: ['kind'] as const,
      buckets: STOP_BUCKETS,
      registers,
    }),
    toolCalls: new Counter({
      name: 'tomodachi_tool_calls_total',
      help: 'Tool calls, by tool and status (ok, error, timeout, aborted)',
      labelNames: ['tool', 'status'] as const,
      registers,
    }),
    toolDuration: new Histogram({
      name: 'tomodachi_tool_call_duration_seconds',
      help: 'Duration of tool calls',
      labelNames: ['tool'] as const,
      buckets: TOOL_BUCKETS,
      registers,
    }),
    mcpServerUp: new Gauge({
      name: 'tomodachi_mcp_server_up',
      help: 'Whether each configured MCP server is connected (1) or not (0)',
      labelNames: ['server'] as const,
      registers,
    }),
    queryDuration: new Histogram({
      name: 'tomodachi_db_query_duration_seconds',
      help: 'Database query latency, by statement kind',
      labelNames: ['operation'] as const,
      buckets: QUERY_BUCKETS,
      registers,
    }),
    queryErrors: new Counter({
      name: 'tomodachi_db_query_errors_total',
      help: 'Database queries that failed, by statement kind',
      labelNames: ['operation'] as const,
      registers,
    }),
    reminders: new Counter({
      name: 'tomodachi_reminders_total',
      help: 'Reminders claimed when due, delivered, retried after a failure, or given up (failed)',
      labelNames: ['event'] as const,
      registers,
    }),
  };
}

export type MetricFamilies = ReturnType<typeof createMetricFamilies>;
