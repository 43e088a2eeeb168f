/**
 * The time zone a scope stores (what `/config timezone` writes) decides what
 * `current_time` answers and when "at 09:00" fires — on an injected clock, on both databases.
 * The turn hands the tools `settings.timezone` as the context's `timeZone` (turn-runner.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/logger.ts';
import type { ToolContext } from '../../src/core/tool.ts';
import { loadScopeSettings, updateScopeSettings } from '../../src/db/scope-settings-repository.ts';
import { ManualClock } from '../../src/stream/testing/manual-clock.ts';
import { createCurrentTimeTool } from '../../src/tools/builtin/current-time-tool.ts';
import { createSetReminderTool } from '../../src/tools/builtin/set-reminder-tool.ts';
import {
  ReminderScheduler,
  type Reminder,
  type ReminderDelivery,
} from '../../src/tools/reminders/reminder-scheduler.ts';
import { ToolRegistry } from '../../src/tools/tool-registry.ts';
import { testBackends, type TestDatabase } from '../support/test-database.ts';
import { eventually } from './support/eventually.ts';

const TOKYO_GUILD = '170000000000000001';
const PARIS_MEMBER = '170000000000000002';
const HOUR = 3_600_000;

class RecordingDelivery implements ReminderDelivery {
  readonly delivered: Array<{ content: string; at: number }> = [];
  private readonly clock: ManualClock;
  constructor(clock: ManualClock) {
    this.clock = clock;
  }
  deliver(reminder: Reminder): Promise<void> {
    this.delivered.push({ content: reminder.content, at: this.clock.now() });
    return Promise.resolve();
  }
}

describe.each(testBackends())('a scope’s time zone on $name', (backend) => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await backend.open();
    await database.migrate();
  }, 180_000);
  afterAll(() => database.dispose());

  /** The tool context a turn in that scope builds, from the settings as stored. */
  async function contextOf(scopeId: string, kind: 'guild' | 'dm'): Promise<ToolContext> {
    const settings = await loadScopeSettings(database.db, scopeId);
    return {
      scopeId,
      guildId: kind === 'guild' ? scopeId : undefined,
      channelId: kind === 'guild' ? '270000000000000001' : '270000000000000002',
      userId: kind === 'guild' ? '370000000000000001' : scopeId,
      messageId: kind === 'guild' ? '470000000000000001' : '470000000000000002',
      turnId: '00000000-0000-4000-8000-000000000001',
      memberPermissions: '0',
      locale: 'en-US',
      timeZone: settings.timezone,
    };
  }

  it('reads current_time and fires "at 09:00" in the zone the scope chose', async () => {
    // 2026-01-15 06:00 UTC: 15:00 in Tokyo, 07:00 in Paris.
    const clock = new ManualClock(Date.UTC(2026, 0, 15, 6, 0, 0));
    const registry = new ToolRegistry({ clock, logger: silentLogger })
      .register(createCurrentTimeTool({ clock }))
      .register(createSetReminderTool({ db: database.db, clock, limits: { pendingPerMember: 3 } }));
    const run = (name: string, input: unknown, context: ToolContext) =>
      registry.execute({ id: 'call', name, input }, context, new AbortController().signal);

    const unset = await contextOf(TOKYO_GUILD, 'guild');
    expect(await run('current_time', {}, unset)).toMatchObject({
      output: expect.stringContaining('06:00 in UTC') as string,
    });
    await updateScopeSettings(
      database.db,
      { id: TOKYO_GUILD, kind: 'guild' },
      { timezone: 'Asia/Tokyo' },
    );
    await updateScopeSettings(
      database.db,
      { id: PARIS_MEMBER, kind: 'dm' },
      { timezone: 'Europe/Paris' },
    );
    const tokyo = await contextOf(TOKYO_GUILD, 'guild');
    const paris = await contextOf(PARIS_MEMBER, 'dm');
    expect(await run('current_time', {}, tokyo)).toMatchObject({
      output: expect.stringContaining('15:00 in Asia/Tokyo (UTC+09:00)') as string,
    });
    expect(await run('current_time', {}, paris)).toMatchObject({
      output: expect.stringContaining('07:00 in Europe/Paris (UTC+01:00)') as string,
    });

    // The same words, "tomorrow at 09:00", in each scope.
    expect(
      await run('set_reminder', { message: 'tokyo tea', at: '2026-01-16T09:00' }, tokyo),
    ).toMatchObject({ ok: true });
    expect(
      await run('set_reminder', { message: 'paris tea', at: '2026-01-16T09:00' }, paris),
    ).toMatchObject({ ok: true });
    const delivery = new RecordingDelivery(clock);
    const stop = new AbortController();
    const scheduler = new ReminderScheduler({
      db: database.db,
      clock,
      databaseTime: () => Promise.resolve(new Date(clock.now())),
      delivery,
      logger: silentLogger,
      options: { batchSize: 20, pollIntervalMs: HOUR },
    });
    const running = scheduler.run(stop.signal);
    // 09:00 in Tokyo is 00:00 UTC; 09:00 in Paris is 08:00 UTC.
    for (let hour = 0; hour < 26; hour += 1) {
      await eventually(() => clock.pendingSleeps().length === 1);
      await clock.advance(HOUR);
    }
    await eventually(() => delivery.delivered.length === 2);
    stop.abort();
    await running;
    expect(
      delivery.delivered.map(({ content, at }) => [content, new Date(at).toISOString()]),
    ).toEqual([
      ['tokyo tea', '2026-01-16T00:00:00.000Z'],
      ['paris tea', '2026-01-16T08:00:00.000Z'],
    ]);
  });
});
