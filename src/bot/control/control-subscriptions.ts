import { CONTROL_BUS_RESUMED, type ControlBus } from '../../core/control-bus.ts';
import type { Logger } from '../../core/logger.ts';
import type { SceneCache } from '../cast/scene-cache.ts';
import type { DailyBudget } from '../limits/daily-budget.ts';
import type { ChannelSettingsCache, ScopeSettingsCache } from '../settings/settings-cache.ts';
import {
  CONTROL_TOPICS,
  channelSettingsChangedSchema,
  sceneChangedSchema,
  settingsChangedSchema,
  usageAddedSchema,
} from './control-messages.ts';

/** Publishes a control message in the background: a lost one costs a refresh delay, no more. */
export function announcer(options: { bus: ControlBus; logger: Logger }) {
  return (topic: string, payload: unknown): void => {
    if (!options.bus.shared) return;
    void options.bus.publish(topic, payload).catch((error: unknown) => {
      options.logger.warn({ err: error, topic }, 'could not tell the other processes');
    });
  };
}

/**
 * What another process's writes mean for this one's caches: a settings or scene change drops
 * the stale copy, spent tokens drop the scope's daily tally, and a bus that was away (messages missed)
 * drops every cached setting. Returns the unsubscribe.
 */
export function followOtherProcesses(options: {
  bus: ControlBus;
  settings: ScopeSettingsCache;
  channelSettings: ChannelSettingsCache;
  /** Who is on stage per channel (left out by tests that play no characters). */
  scenes?: SceneCache;
  dailyBudget: DailyBudget;
  instanceId: string;
  logger: Logger;
}): () => void {
  const { bus, settings, channelSettings, scenes, dailyBudget, instanceId, logger } = options;
  const malformed = (topic: string) =>
    logger.warn({ topic }, 'ignored a malformed control message');
  const unsubscribes = [
    bus.subscribe(CONTROL_TOPICS.settings, (payload) => {
      const parsed = settingsChangedSchema.safeParse(payload);
      if (!parsed.success) return malformed(CONTROL_TOPICS.settings);
      if (parsed.data.origin === instanceId) return;
      const { scopeId, version } = parsed.data;
      const dropped = settings.changedElsewhere(scopeId, version);
      logger.debug({ scopeId, version, dropped }, 'settings changed in another process');
    }),
    bus.subscribe(CONTROL_TOPICS.channelSettings, (payload) => {
      const parsed = channelSettingsChangedSchema.safeParse(payload);
      if (!parsed.success) return malformed(CONTROL_TOPICS.channelSettings);
      if (parsed.data.origin !== instanceId)
        channelSettings.changedElsewhere(parsed.data.channelId);
    }),
    bus.subscribe(CONTROL_TOPICS.usage, (payload) => {
      const parsed = usageAddedSchema.safeParse(payload);
      if (!parsed.success) return malformed(CONTROL_TOPICS.usage);
      if (parsed.data.origin !== instanceId) dailyBudget.forget(parsed.data.scopeId);
    }),
    bus.subscribe(CONTROL_TOPICS.scene, (payload) => {
      const parsed = sceneChangedSchema.safeParse(payload);
      if (!parsed.success) return malformed(CONTROL_TOPICS.scene);
      if (parsed.data.origin === instanceId) return;
      const { channelId } = parsed.data;
      if (channelId === undefined) scenes?.clear();
      else scenes?.changedElsewhere(channelId);
    }),
    bus.subscribe(CONTROL_BUS_RESUMED, () => {
      settings.clear();
      channelSettings.clear();
      scenes?.clear();
    }),
  ];
  return () => {
    for (const unsubscribe of unsubscribes) unsubscribe();
  };
}
