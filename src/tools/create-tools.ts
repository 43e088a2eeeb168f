import type { Clock, RandomSource } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { BotMetrics } from '../core/metrics.ts';
import type { Database } from '../db/database.ts';
import { createBuiltinTools, type BuiltinToolsOptions } from './builtin-tools.ts';
import type { McpServerConfig } from './mcp/mcp-config.ts';
import { McpToolSource } from './mcp/mcp-tool-source.ts';
import type { ReminderShards } from '../db/reminder-repository.ts';
import { ReminderScheduler, type ReminderDelivery } from './reminders/reminder-scheduler.ts';
import { databaseToolCallRecorder } from './tool-call-recorder.ts';
import { createToolCatalog, type ToolCatalog } from './tool-catalog.ts';
import { ToolRegistry } from './tool-registry.ts';
import { databaseTime } from '../db/database-time.ts';

export interface ToolsOptions extends Pick<
  BuiltinToolsOptions,
  'discordActions' | 'memoryLimits' | 'reminderLimits' | 'fetch'
> {
  db: Database;
  clock: Clock;
  logger: Logger;
  random?: RandomSource;
  /** Tool calls and reminders are counted here. */
  metrics?: BotMetrics;
  /** From loadMcpConfig(config.mcpConfigPath, environment); empty without MCP_CONFIG. */
  mcpServers: readonly McpServerConfig[];
  /** Implemented by the bot: posts a due reminder. */
  reminderDelivery: ReminderDelivery;
  /** A shard process's shards: it delivers only their reminders. */
  reminderShards?: ReminderShards | undefined;
}

export interface Tools {
  /** The ToolExecutor the orchestrator uses. */
  registry: ToolRegistry;
  /** MCP server states, for /doctor. */
  mcp: McpToolSource;
  /** The switches of `/config tools` and the MCP states of `/doctor`. */
  catalog: ToolCatalog;
  /** Start with `run(signal)` once the bot can deliver (after login). */
  reminders: ReminderScheduler;
  close(): Promise<void>;
}

/**
 * Builds the tool layer for the composition root: the registry with every built-in tool, the
 * operator's MCP servers (connected here, at start-up; a server that is down is retried in
 * the background) and the reminder scheduler, with calls audited in `tool_calls`.
 */
export async function createTools(options: ToolsOptions): Promise<Tools> {
  const logger = options.logger.child({ component: 'tools' });
  const reminders = new ReminderScheduler({
    db: options.db,
    clock: options.clock,
    databaseTime: () => databaseTime(options.db),
    delivery: options.reminderDelivery,
    logger,
    metrics: options.metrics,
    shards: options.reminderShards,
  });
  const mcp = new McpToolSource({
    servers: options.mcpServers,
    clock: options.clock,
    logger,
    random: options.random,
  });
  const registry = new ToolRegistry({
    clock: options.clock,
    logger,
    recorder: databaseToolCallRecorder(options.db),
    metrics: options.metrics,
  })
    .register(
      ...createBuiltinTools({
        ...options,
        onReminderCreated: () => reminders.wake(),
      }),
    )
    .addSource(mcp);
  await mcp.start();
  const catalog = createToolCatalog({ registry, mcp, mcpServers: options.mcpServers });
  return { registry, mcp, catalog, reminders, close: () => mcp.close() };
}
