import { LocalControlBus, type ControlBus } from '../core/control-bus.ts';
import { loadChannelOverrides } from '../db/channel-settings-repository.ts';
import { claimMessage } from '../db/claim-repository.ts';
import { loadScopeSettings } from '../db/scope-settings-repository.ts';
import { StopRegistry } from '../stream/stop/stop-registry.ts';
import { ChannelHistory } from './context/channel-history.ts';
import { ChannelSettingsCache } from './settings/channel-settings-cache.ts';
import { CommandCooldowns } from './commands/command-cooldowns.ts';
import { createCommands } from './commands/command-list.ts';
import { CommandRouter } from './commands/command-router.ts';
import type { SlashCommand } from './commands/slash-command.ts';
import { CONTROL_TOPICS } from './control/control-messages.ts';
import { announcer } from './control/control-subscriptions.ts';
import { CrossProcessStops } from './stops/cross-process-stops.ts';
import { streamingElsewhere } from './stops/streaming-elsewhere.ts';
import { DailyBudget } from './limits/daily-budget.ts';
import { DeliveryPort } from './delivery/delivery-port.ts';
import type { DiscordBotOptions } from './discord-bot-options.ts';
import { historyMessagesOf } from './client/gateway-tolerance.ts';
import { MemberNotices } from './delivery/member-notices.ts';
import { SettingsCache } from './settings/settings-cache.ts';

/** Messages kept per channel window, and channel windows kept. */
const HISTORY_PER_CHANNEL = 50;
const HISTORY_CHANNELS = 5_000;
const SETTINGS_REFRESH_MS = 30_000;

/** The bot's long-lived state, built before login: caches, budgets, stops, slash commands. */
export interface BotServices {
  stops: StopRegistry;
  bus: ControlBus;
  crossProcessStops: CrossProcessStops;
  settings: SettingsCache;
  channelSettings: ChannelSettingsCache;
  dailyBudget: DailyBudget;
  history: ChannelHistory;
  commands: SlashCommand[];
  commandRouter: CommandRouter;
  notices: MemberNotices;
  /** Every channel write of the bot goes through it; it holds the channels' write budgets. */
  delivery: DeliveryPort;
}

/**
 * Builds the bot's services. Each cache announces its changes on the control bus, so the other
 * processes on this database drop their copies (they follow in `followOtherProcesses`).
 */
export function createBotServices(
  options: DiscordBotOptions,
  shutdownSignal: AbortSignal,
): BotServices {
  const { client, db, clock, logger, instanceId } = options;
  const stops = new StopRegistry();
  const bus = options.bus ?? new LocalControlBus();
  const announce = announcer({ bus, logger });
  const crossProcessStops = new CrossProcessStops({
    stops,
    bus,
    clock,
    logger,
    instanceId,
    streamingElsewhere: streamingElsewhere({
      db,
      instanceId,
      isAlive: (other) => options.isAlive(other),
      canJudgePeers: () => options.canJudgePeers(),
    }),
  });
  const settings = new SettingsCache({
    load: (scopeId) => loadScopeSettings(db, scopeId),
    clock,
    logger,
    refreshAfterMs: SETTINGS_REFRESH_MS,
    announce: (change) => announce(CONTROL_TOPICS.settings, { origin: instanceId, ...change }),
  });
  const dailyBudget = new DailyBudget({
    db,
    clock,
    signal: shutdownSignal,
    announce: (scopeId) => announce(CONTROL_TOPICS.usage, { origin: instanceId, scopeId }),
  });
  const channelSettings = new ChannelSettingsCache({
    load: (channelId) => loadChannelOverrides(db, channelId),
    clock,
    logger,
    refreshAfterMs: SETTINGS_REFRESH_MS,
    announce: (channelId) =>
      announce(CONTROL_TOPICS.channelSettings, { origin: instanceId, channelId }),
  });
  const history = new ChannelHistory({
    perChannel: HISTORY_PER_CHANNEL,
    maxChannels: HISTORY_CHANNELS,
    fetchRecent: async (channelId, limit) => {
      const channel = await client.channels.fetch(channelId);
      if (channel === null || !channel.isTextBased()) return [];
      const messages = await channel.messages.fetch({ limit });
      return historyMessagesOf([...messages.values()], { channelId, logger });
    },
    logger,
  });
  const delivery = options.delivery ?? new DeliveryPort({ clock, logger });
  const commands = options.commands ?? createCommands();
  const commandRouter = new CommandRouter({
    commands,
    services: {
      db,
      settings,
      channelSettings,
      secretBox: options.secretBox,
      providers: options.providers,
      tools: options.toolCatalog,
      stops: crossProcessStops,
      clock,
      logger,
      ownerIds: options.ownerIds,
      instanceId,
    },
    cooldowns: new CommandCooldowns({ clock }),
    claim: (interactionId) => claimMessage(db, { key: `interaction:${interactionId}`, instanceId }),
  });
  return {
    stops,
    bus,
    crossProcessStops,
    settings,
    dailyBudget,
    channelSettings,
    history,
    commands,
    commandRouter,
    notices: new MemberNotices({ clock, logger, delivery }),
    delivery,
  };
}
