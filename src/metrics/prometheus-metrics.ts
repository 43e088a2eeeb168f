import { collectDefaultMetrics, Registry } from 'prom-client';
import type {
  BotMetrics,
  DatabaseQuerySample,
  DiscordResponseSample,
  ReminderEvent,
  StopKind,
  ToolCallSample,
  TurnLoad,
  TurnSample,
} from '../core/metrics.ts';
import { BoundedLabel } from './bounded-label.ts';
import { discordRequestKind, statusClass } from './discord-route-kind.ts';
import { createMetricFamilies, type MetricFamilies } from './metric-families.ts';

/** Distinct values kept per member-chosen label before the rest count as `other`. */
const MAX_MODELS = 32;
const MAX_TOOLS = 64;
const MAX_MCP_SERVERS = 32;

export interface PrometheusMetricsOptions {
  /** Labels on every series, e.g. `{ shard: '0' }` once the bot is sharded. */
  constantLabels?: Readonly<Record<string, string>>;
  /** prom-client's process metrics (heap, RSS, event-loop lag, GC, handles). Default true. */
  processMetrics?: boolean;
}

export interface McpServerStatus {
  name: string;
  up: boolean;
}

/**
 * The bot's metrics on prom-client: one registry per instance (tests run several bots in one
 * process), the process metrics, and the families of `metric-families.ts` behind the typed
 * BotMetrics methods the layers call.
 */
export class PrometheusMetrics implements BotMetrics {
  readonly registry = new Registry();
  readonly #families: MetricFamilies;
  readonly #models = new BoundedLabel(MAX_MODELS);
  readonly #tools = new BoundedLabel(MAX_TOOLS);
  readonly #servers = new BoundedLabel(MAX_MCP_SERVERS);
  #turnLoad: (() => TurnLoad) | undefined;
  #mcpServers: (() => readonly McpServerStatus[]) | undefined;

  constructor(options: PrometheusMetricsOptions = {}) {
    if (options.constantLabels !== undefined) {
      this.registry.setDefaultLabels({ ...options.constantLabels });
    }
    if (options.processMetrics !== false) collectDefaultMetrics({ register: this.registry });
    this.#families = createMetricFamilies(this.registry);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The Prometheus text exposition of every family, gauges read from their sources now. */
  async render(): Promise<string> {
    this.#refreshGauges();
    return this.registry.metrics();
  }

  turnFinished(turn: TurnSample): void {
    const labels = { provider: turn.provider, model: this.#models.value(turn.model) };
    const families = this.#families;
    families.turns.inc({ ...labels, status: turn.status });
    families.turnDuration.observe(labels, turn.durationMs / 1000);
    if (turn.timeToFirstTokenMs !== null) {
      families.firstToken.observe(labels, turn.timeToFirstTokenMs / 1000);
    }
    families.tokens.inc({ ...labels, direction: 'input' }, turn.inputTokens);
    families.tokens.inc({ ...labels, direction: 'output' }, turn.outputTokens);
  }

  toolCall(call: ToolCallSample): void {
    const tool = this.#tools.value(call.tool);
    this.#families.toolCalls.inc({ tool, status: call.status });
    this.#families.toolDuration.observe({ tool }, call.durationMs / 1000);
  }

  discordResponse(response: DiscordResponseSample): void {
    const kind = discordRequestKind(response.method, response.route);
    this.#families.discordRequests.inc({ kind, status: statusClass(response.status) });
    if (response.status === 429) {
      this.#families.discordRateLimited.inc({ kind, scope: response.rateLimitScope ?? 'route' });
    }
  }

  typingSkipped(): void {
    this.#families.typingSkipped.inc();
  }

  stopLatency(stop: { kind: StopKind; milliseconds: number }): void {
    this.#families.stopLatency.observe({ kind: stop.kind }, stop.milliseconds / 1000);
  }

  databaseQuery(query: DatabaseQuerySample): void {
    const labels = { operation: query.operation };
    this.#families.queryDuration.observe(labels, query.durationMs / 1000);
    if (!query.ok) this.#families.queryErrors.inc(labels);
  }

  reminder(event: ReminderEvent, count = 1): void {
    if (count > 0) this.#families.reminders.inc({ event }, count);
  }

  observeTurnLoad(source: () => TurnLoad): void {
    this.#turnLoad = source;
  }

  observeMcpServers(source: () => readonly McpServerStatus[]): void {
    this.#mcpServers = source;
  }

  #refreshGauges(): void {
    const load = this.#turnLoad?.();
    this.#families.liveTurns.set(load?.live ?? 0);
    this.#families.queuedTurns.set(load?.queued ?? 0);
    const servers = this.#mcpServers?.();
    if (servers === undefined) return;
    this.#families.mcpServerUp.reset();
    for (const server of servers) {
      this.#families.mcpServerUp.set(
        { server: this.#servers.value(server.name) },
        server.up ? 1 : 0,
      );
    }
  }
}
