import { describe, expect, it } from 'vitest';
import { noChannelOverrides, type ChannelOverrides } from '../../core/channel-settings.ts';
import { CONTROL_BUS_RESUMED, LocalControlBus } from '../../core/control-bus.ts';
import { silentLogger } from '../../core/logger.ts';
import { defaultScopeSettings } from '../../core/settings.ts';
import { ManualClock, settle } from '../../stream/testing/manual-clock.ts';
import { DailyBudget } from '../limits/daily-budget.ts';
import { channelSettingsCache, scopeSettingsCache } from '../settings/settings-cache.ts';
import { announcer, followOtherProcesses } from './control-subscriptions.ts';
import { CONTROL_TOPICS } from './control-messages.ts';

const CHANNEL = '100000000000000001';
const PIRATE = { name: 'Pirate', instructions: 'Talk like a pirate.' };

/** One process's channel cache over the shared database (`stored`) and the shared bus. */
function process(instanceId: string, bus: LocalControlBus, stored: Map<string, ChannelOverrides>) {
  const clock = new ManualClock();
  const announce = announcer({ bus, logger: silentLogger });
  const channelSettings = channelSettingsCache({
    load: (channelId) => Promise.resolve(stored.get(channelId) ?? noChannelOverrides(channelId)),
    clock,
    logger: silentLogger,
    refreshAfterMs: 30_000,
    announce: (channelId) =>
      announce(CONTROL_TOPICS.channelSettings, { origin: instanceId, channelId }),
  });
  followOtherProcesses({
    bus,
    settings: scopeSettingsCache({
      load: (scopeId) => Promise.resolve(defaultScopeSettings(scopeId)),
      clock,
      logger: silentLogger,
      refreshAfterMs: 30_000,
    }),
    channelSettings,
    dailyBudget: new DailyBudget({ db: undefined as never, clock }),
    instanceId,
    logger: silentLogger,
  });
  return channelSettings;
}

describe('channel settings across processes', () => {
  it('a channel persona set in one process is used by the next turn in another, without waiting out the cache', async () => {
    const bus = new LocalControlBus({ shared: true });
    const stored = new Map<string, ChannelOverrides>();
    const first = process('instance-a', bus, stored);
    const second = process('instance-b', bus, stored);
    expect((await second.get(CHANNEL)).persona).toBeUndefined(); // cached in b
    const updated = { ...noChannelOverrides(CHANNEL), persona: PIRATE };
    stored.set(CHANNEL, updated);
    first.written(updated);
    await settle();
    expect((await second.get(CHANNEL)).persona).toEqual(PIRATE);
  });

  it('reads every channel again after the bus was away (announcements may have been missed)', async () => {
    const bus = new LocalControlBus({ shared: true });
    const stored = new Map<string, ChannelOverrides>();
    const cache = process('instance-a', bus, stored);
    expect((await cache.get(CHANNEL)).persona).toBeUndefined();
    stored.set(CHANNEL, { ...noChannelOverrides(CHANNEL), persona: PIRATE });
    await bus.publish(CONTROL_BUS_RESUMED, {});
    expect((await cache.get(CHANNEL)).persona).toEqual(PIRATE);
  });
});
