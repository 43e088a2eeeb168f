import type { Clock } from '../core/clock.ts';
import type { Database } from '../db/database.ts';
import { createCurrentTimeTool } from './builtin/current-time-tool.ts';
import { createDiscordActionTools } from './builtin/discord-action-tools.ts';
import type { DiscordActions } from './builtin/discord-actions.ts';
import { createMemoryTools, type MemoryLimits } from './builtin/memory-tools.ts';
import { createSetReminderTool, type ReminderLimits } from './builtin/set-reminder-tool.ts';
import { createFetchUrlTool, type FetchUrlLimits } from './fetch/fetch-url-tool.ts';
import type { HostResolver } from './fetch/safe-fetch.ts';
import type { ToolDefinition } from './tool-definition.ts';

export interface BuiltinToolsOptions {
  db: Database;
  clock: Clock;
  /** Implemented by the bot: reactions and stickers on the message being answered. */
  discordActions: DiscordActions;
  memoryLimits?: Partial<MemoryLimits>;
  reminderLimits?: Partial<ReminderLimits>;
  /** Called for each new reminder (wire it to ReminderScheduler.wake). */
  onReminderCreated?: (dueAt: Date) => void;
  fetch?: { limits?: Partial<FetchUrlLimits>; resolveHost?: HostResolver };
}

/**
 * Every built-in tool. Each is on by default except fetch_url; a scope switches any of them
 * with the feature flag `tools.<name>` (true/false).
 */
export function createBuiltinTools(options: BuiltinToolsOptions): ToolDefinition[] {
  return [
    ...createMemoryTools({ db: options.db, limits: options.memoryLimits }),
    ...createDiscordActionTools({ actions: options.discordActions }),
    createSetReminderTool({
      db: options.db,
      clock: options.clock,
      limits: options.reminderLimits,
      onReminderCreated: options.onReminderCreated,
    }),
    createCurrentTimeTool({ clock: options.clock }),
    createFetchUrlTool({
      clock: options.clock,
      limits: options.fetch?.limits,
      resolveHost: options.fetch?.resolveHost,
    }),
  ];
}
