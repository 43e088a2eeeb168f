/**
 * A scope's daily budget holds across processes. Usage is one row per scope and day
 * that every process adds to (each turn's tokens added once, by the process that ran it); a
 * process's cached tally is dropped as soon as another announces spending over the bus.
 */
import { noChannelOverrides } from '../../src/core/channel-settings.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { followOtherProcesses, announcer } from '../../src/bot/control/control-subscriptions.ts';
import { CONTROL_TOPICS } from '../../src/bot/control/control-messages.ts';
import { DailyBudget } from '../../src/bot/limits/daily-budget.ts';
import { channelSettingsCache, scopeSettingsCache } from '../../src/bot/settings/settings-cache.ts';
import { LocalControlBus } from '../../src/core/control-bus.ts';
import { silentLogger } from '../../src/core/logger.ts';
import { defaultScopeSettings } from '../../src/core/settings.ts';
import { ensureScope } from '../../src/db/scope-settings-repository.ts';
import { dailySpend } from '../../src/db/usage-repository.ts';
import { ManualClock } from '../../src/stream/testing/manual-clock.ts';
import { testBackends, type TestDatabase } from '../support/test-database.ts';

const SCOPE = '123456789012345670';

describe.each(testBackends())('the daily budget of two processes on $name', (backend) => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await backend.open();
    await database.migrate();
    await ensureScope(database.db, SCOPE, 'guild');
  });
  afterAll(() => database.dispose());

  /** One process: its budget and caches, following the others over the shared bus. */
  function process(instanceId: string, bus: LocalControlBus, clock: ManualClock) {
    const announce = announcer({ bus, logger: silentLogger });
    const dailyBudget = new DailyBudget({
      db: database.db,
      clock,
      announce: (scopeId) => announce(CONTROL_TOPICS.usage, { origin: instanceId, scopeId }),
    });
    const settings = scopeSettingsCache({
      load: (scopeId) => Promise.resolve(defaultScopeSettings(scopeId)),
      clock,
      logger: silentLogger,
      refreshAfterMs: 30_000,
    });
    const channelSettings = channelSettingsCache({
      load: (channelId) => Promise.resolve(noChannelOverrides(channelId)),
      clock,
      logger: silentLogger,
      refreshAfterMs: 30_000,
    });
    followOtherProcesses({
      bus,
      settings,
      channelSettings,
      dailyBudget,
      instanceId,
      logger: silentLogger,
    });
    return dailyBudget;
  }

  it('refuses in one process as soon as another spent the rest, and counts every turn once', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 5, 12));
    const bus = new LocalControlBus({ shared: true });
    const first = process('instance-a', bus, clock);
    const second = process('instance-b', bus, clock);
    expect(await second.exhausted(SCOPE, { tokens: 950 })).toBe(false); // now cached: 0 used
    expect(await first.exhausted(SCOPE, { tokens: 950 })).toBe(false);
    await first.record(SCOPE, { inputTokens: 600, outputTokens: 100 });
    expect(await second.exhausted(SCOPE, { tokens: 950 })).toBe(false); // 700 read again, at once
    await second.record(SCOPE, { inputTokens: 200, outputTokens: 50 });
    // 950 spent: both refuse the next turn, neither waiting out its cache.
    expect(await first.exhausted(SCOPE, { tokens: 950 })).toBe(true);
    expect(await second.exhausted(SCOPE, { tokens: 950 })).toBe(true);
    expect((await dailySpend(database.db, SCOPE, new Date(clock.now()))).tokens).toBe(950);
  });

  it('without the bus, keeps serving its cached tally for up to a minute (what the bus fixes)', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 6, 12));
    const first = process('instance-a', new LocalControlBus({ shared: true }), clock);
    const second = process('instance-b', new LocalControlBus({ shared: true }), clock);
    expect(await second.exhausted(SCOPE, { tokens: 500 })).toBe(false);
    await first.record(SCOPE, { inputTokens: 500, outputTokens: 0 });
    expect(await second.exhausted(SCOPE, { tokens: 500 })).toBe(false);
  });
});
