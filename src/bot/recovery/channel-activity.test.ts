import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../stream/testing/manual-clock.ts';
import { ChannelActivity } from './channel-activity.ts';

describe('ChannelActivity', () => {
  it('keeps the newest id per channel, even when an older one is seen later', () => {
    const activity = new ChannelActivity({ clock: new ManualClock(), maxChannels: 10 });
    activity.record('c1', '1000000000000000002');
    activity.record('c1', '999999999999999999');
    expect(activity.recent({ withinMs: 1_000, limit: 10 })).toMatchObject([
      { channelId: 'c1', lastSeenId: '1000000000000000002' },
    ]);
  });

  it('lists recently active channels, newest activity first, bounded', async () => {
    const clock = new ManualClock();
    const activity = new ChannelActivity({ clock, maxChannels: 10 });
    activity.record('old', '1');
    await clock.advance(60_000);
    activity.record('a', '2');
    activity.record('b', '3');
    activity.record('a', '4');
    expect(activity.recent({ withinMs: 30_000, limit: 10 }).map((c) => c.channelId)).toEqual([
      'a',
      'b',
    ]);
    expect(activity.recent({ withinMs: 30_000, limit: 1 }).map((c) => c.channelId)).toEqual(['a']);
  });

  it('forgets the least recently active channel beyond its bound', () => {
    const activity = new ChannelActivity({ clock: new ManualClock(), maxChannels: 2 });
    activity.record('a', '1');
    activity.record('b', '2');
    activity.record('a', '3');
    activity.record('c', '4');
    const channels = activity.recent({ withinMs: 1_000, limit: 10 }).map((c) => c.channelId);
    expect(channels).toEqual(['c', 'a']);
  });

  it('hands out what changed since the last time (to persist), and restores without changing', () => {
    const activity = new ChannelActivity({ clock: new ManualClock(), maxChannels: 10 });
    activity.restore({ channelId: 'restored', lastSeenId: '5', lastActivityAt: 0 });
    activity.record('c1', '7');
    activity.record('c2', '8');
    expect(activity.takeChanged().map((channel) => channel.channelId)).toEqual(['c1', 'c2']);
    expect(activity.takeChanged()).toEqual([]);
    activity.markChanged(['c1', 'unknown']);
    expect(activity.takeChanged().map((channel) => channel.lastSeenId)).toEqual(['7']);
    // What this process saw itself wins over a restored id.
    activity.restore({ channelId: 'c1', lastSeenId: '1', lastActivityAt: 0 });
    expect(activity.recent({ withinMs: 1_000, limit: 10 })).toContainEqual(
      expect.objectContaining({ channelId: 'c1', lastSeenId: '7' }),
    );
  });
});
