import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** Seconds; a reply's first token usually lands in 0.3–3 s, a whole turn in 1–60 s. */
const FIRST_TOKEN_BUCKETS = [0.1, 0.25, 0.5, 1, 2, 3, 5, 8, 13, 20, 30, 60];
const TURN_BUCKETS = [0.5, 1, 2, 3, 5, 8, 13, 20, 30, 45, 60, 120, 300];
const STOP_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5, 10];
const TOOL_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30];
const QUERY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** One family: what prom-client builds, and the label names its series carry. */
type FamilySpec = {
  name: string;
  help: string;
  labelNames?: readonly string[];
} & ({ kind: 'counter' } | { kind: 'gauge' } | { kind: 'histogram'; buckets: number[] });

/**
 * Every metric family the bot exports beyond prom-client's default process metrics. The names
 * are a public contract: deploy/grafana/tomodachi.json queries them and a test holds the two
 * together.
 */
const METRIC_FAMILIES = {
  turns: {
    kind: 'counter',
    name: 'tomodachi_turns_total',
    help: 'Turns answered, by final status (complete, stopped, failed), provider and model',
    labelNames: ['status', 'provider', 'model'],
  },
  firstToken: {
    kind: 'histogram',
    name: 'tomodachi_turn_first_token_seconds',
    help: 'Time from the start of a turn to the first token of the model',
    labelNames: ['provider', 'model'],
    buckets: FIRST_TOKEN_BUCKETS,
  },
  turnDuration: {
    kind: 'histogram',
    name: 'tomodachi_turn_duration_seconds',
    help: 'Duration of a turn, from its start to its last Discord write',
    labelNames: ['provider', 'model'],
    buckets: TURN_BUCKETS,
  },
  tokens: {
    kind: 'counter',
    name: 'tomodachi_tokens_total',
    help: 'Tokens the models read (input) and wrote (output)',
    labelNames: ['direction', 'provider', 'model'],
  },
  liveTurns: {
    kind: 'gauge',
    name: 'tomodachi_turns_live',
    help: 'Turns in progress now: one live stream per busy channel',
  },
  queuedTurns: {
    kind: 'gauge',
    name: 'tomodachi_turns_queued',
    help: 'Triggers waiting behind a live turn in their channel',
  },
  discordRequests: {
    kind: 'counter',
    name: 'tomodachi_discord_requests_total',
    help: 'Discord REST responses, by what the request did and status class',
    labelNames: ['kind', 'status'],
  },
  discordRateLimited: {
    kind: 'counter',
    name: 'tomodachi_discord_rate_limited_total',
    help: 'Discord 429 responses, by scope (route bucket, global, shared) and request kind',
    labelNames: ['scope', 'kind'],
  },
  typingSkipped: {
    kind: 'counter',
    name: 'tomodachi_discord_typing_skipped_total',
    help: 'Typing indicators skipped to save the global request budget',
  },
  stopLatency: {
    kind: 'histogram',
    name: 'tomodachi_stop_latency_seconds',
    help: 'From a stop request (phrase, /stop, button) to the end of the stopped stream',
    labelNames: ['kind'],
    buckets: STOP_BUCKETS,
  },
  toolCalls: {
    kind: 'counter',
    name: 'tomodachi_tool_calls_total',
    help: 'Tool calls, by tool and status (ok, error, timeout, aborted)',
    labelNames: ['tool', 'status'],
  },
  toolDuration: {
    kind: 'histogram',
    name: 'tomodachi_tool_call_duration_seconds',
    help: 'Duration of tool calls',
    labelNames: ['tool'],
    buckets: TOOL_BUCKETS,
  },
  mcpServerUp: {
    kind: 'gauge',
    name: 'tomodachi_mcp_server_up',
    help: 'Whether each configured MCP server is connected (1) or not (0)',
    labelNames: ['server'],
  },
  queryDuration: {
    kind: 'histogram',
    name: 'tomodachi_db_query_duration_seconds',
    help: 'Database query latency, by statement kind',
    labelNames: ['operation'],
    buckets: QUERY_BUCKETS,
  },
  queryErrors: {
    kind: 'counter',
    name: 'tomodachi_db_query_errors_total',
    help: 'Database queries that failed, by statement kind',
    labelNames: ['operation'],
  },
  reminders: {
    kind: 'counter',
    name: 'tomodachi_reminders_total',
    help: 'Reminders claimed when due, delivered, retried after a failure, or given up (failed)',
    labelNames: ['event'],
  },
} as const satisfies Record<string, FamilySpec>;

type LabelsOf<Spec> = Spec extends { labelNames: readonly (infer Label extends string)[] }
  ? Label
  : string;

/** The prom-client metric a spec builds, typed by its label names. */
type FamilyOf<Spec extends FamilySpec> = Spec extends { kind: 'counter' }
  ? Counter<LabelsOf<Spec>>
  : Spec extends { kind: 'gauge' }
    ? Gauge<LabelsOf<Spec>>
    : Histogram<LabelsOf<Spec>>;

export type MetricFamilies = {
  [Key in keyof typeof METRIC_FAMILIES]: FamilyOf<(typeof METRIC_FAMILIES)[Key]>;
};

/** Registers every family of METRIC_FAMILIES in `registry`, in the table's order. */
export function createMetricFamilies(registry: Registry): MetricFamilies {
  const registers = [registry];
  const build = (spec: FamilySpec) => {
    const { name, help, labelNames } = spec;
    const config = { name, help, registers, ...(labelNames === undefined ? {} : { labelNames }) };
    switch (spec.kind) {
      case 'counter':
        return new Counter(config);
      case 'gauge':
        return new Gauge(config);
      case 'histogram':
        return new Histogram({ ...config, buckets: spec.buckets });
    }
  };
  const entries = Object.entries(METRIC_FAMILIES).map(([key, spec]) => [key, build(spec)]);
  // Object.fromEntries forgets which key holds which metric; the table above says it.
  return Object.fromEntries(entries) as MetricFamilies;
}
