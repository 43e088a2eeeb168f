/**
 * The channels' last message seen, kept across restarts in bot_state: written in one statement
 * however many channels, read back newest first and bounded, forgotten after the window.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  recentChannelActivity,
  saveChannelActivity,
} from '../../src/db/channel-activity-repository.ts';
import { ChannelActivity } from '../../src/bot/recovery/channel-activity.ts';
import {
  ACTIVITY_FLUSH_MS,
  ChannelActivityPersistence,
  NEW_CHANNEL_FLUSH_MS,
} from '../../src/bot/recovery/channel-activity-persistence.ts';
import { silentLogger } from '../../src/core/logger.ts';
import { ManualClock, settle } from '../../src/stream/testing/manual-clock.ts';
import { testBackends, type TestDatabase } from '../support/test-database.ts';

const TEN_MINUTES = 10 * 60_000;

describe.each(testBackends())('channel activity on $name', (backend) => {
  let database: TestDatabase;
  const statements: string[] = [];

  beforeAll(async () => {
    database = await backend.open({ onQuery: (sample) => statements.push(sample.operation) });
    await database.migrate();
  });
  afterAll(() => database.dispose());

  it('writes many channels in one statement and reads back the newest, bounded', async () => {
    const before = statements.length;
    const channels = Array.from({ length: 30 }, (_unused, index) => ({
      channelId: `channel-${index}`,
      lastSeenId: `${1000 + index}`,
    }));
    await saveChannelActivity(database.db, channels, TEN_MINUTES);
    expect(statements.length - before).toBe(1);
    await saveChannelActivity(
      database.db,
      [{ channelId: 'channel-0', lastSeenId: '2000' }],
      TEN_MINUTES,
    );
    const recent = await recentChannelActivity(database.db, { withinMs: TEN_MINUTES, limit: 5 });
    expect(recent).toHaveLength(5);
    expect(recent[0]).toMatchObject({ channelId: 'channel-0', lastSeenId: '2000' });
  });

  it('forgets channels quiet for longer than the window, at the next write', async () => {
    await database.rawQuery(sql`update bot_state set updated_at = now() - interval '11 minutes'
      where key = 'channel-activity:channel-1'`);
    const recent = await recentChannelActivity(database.db, { withinMs: TEN_MINUTES, limit: 100 });
    expect(recent.map((channel) => channel.channelId)).not.toContain('channel-1');
    await saveChannelActivity(
      database.db,
      [{ channelId: 'channel-2', lastSeenId: '3000' }],
      TEN_MINUTES,
    );
    const rows = await database.rawQuery(
      sql`select key from bot_state where key = 'channel-activity:channel-1'`,
    );
    expect(rows).toEqual([]);
  });

  it('writes a channel newly seen within a second, a known one only every pass', async () => {
    const clock = new ManualClock(Date.now());
    const activity = new ChannelActivity({ clock, maxChannels: 100 });
    const persistence = new ChannelActivityPersistence({
      db: database.db,
      activity,
      clock,
      logger: silentLogger,
    });
    const stop = new AbortController();
    const running = persistence.run(stop.signal);
    const saved = async (channelId: string) => {
      const rows = await recentChannelActivity(database.db, { withinMs: TEN_MINUTES, limit: 100 });
      return rows.find((row) => row.channelId === channelId)?.lastSeenId;
    };
    try {
      activity.record('fresh-channel', '5000');
      await clock.advance(NEW_CHANNEL_FLUSH_MS);
      await settle();
      // A SIGKILL now must not leave the channel out of the next start's read-back.
      await expect.poll(() => saved('fresh-channel')).toBe('5000');
      activity.record('fresh-channel', '5001');
      await clock.advance(NEW_CHANNEL_FLUSH_MS);
      await settle();
      expect(await saved('fresh-channel')).toBe('5000');
      await clock.advance(ACTIVITY_FLUSH_MS);
      await settle();
      await expect.poll(() => saved('fresh-channel')).toBe('5001');
    } finally {
      stop.abort();
      await running;
    }
  });
});
