import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../core/logger.ts';
import { ManualClock } from '../../stream/testing/manual-clock.ts';
import { ChannelActivity } from './channel-activity.ts';
import {
  BACKFILL_ACTIVE_WITHIN_MS,
  BACKFILL_MAX_CHANNELS,
  BACKFILL_MESSAGES_PER_CHANNEL,
  SessionBackfill,
} from './session-backfill.ts';

interface Message {
  id: string;
}

function setup(fetchAfter: (channelId: string, afterId: string) => Promise<Message[]>) {
  const clock = new ManualClock();
  const activity = new ChannelActivity({ clock, maxChannels: 1_000 });
  const delivered: string[] = [];
  const requests: { channelId: string; afterId: string; limit: number }[] = [];
  const backfill = new SessionBackfill<Message>({
    activity,
    fetchAfter: (channelId, afterId, limit) => {
      requests.push({ channelId, afterId, limit });
      return fetchAfter(channelId, afterId);
    },
    deliver: (message) => {
      delivered.push(message.id);
      return Promise.resolve();
    },
    logger: silentLogger,
  });
  return { clock, activity, delivered, requests, backfill };
}

describe('SessionBackfill', () => {
  it('fetches after the last id seen and delivers what was missed, oldest first', async () => {
    const { activity, delivered, requests, backfill } = setup(() =>
      Promise.resolve([{ id: '13' }, { id: '11' }, { id: '12' }]),
    );
    activity.record('c1', '10');
    await backfill.run();
    expect(requests).toEqual([
      { channelId: 'c1', afterId: '10', limit: BACKFILL_MESSAGES_PER_CHANNEL },
    ]);
    expect(delivered).toEqual(['11', '12', '13']);
    // The next backfill starts after what this one delivered.
    await backfill.run();
    expect(requests[1]?.afterId).toBe('13');
  });

  it('skips channels quiet for longer than the window and bounds the channel count', async () => {
    const { clock, activity, requests, backfill } = setup(() => Promise.resolve([]));
    activity.record('quiet', '1');
    await clock.advance(BACKFILL_ACTIVE_WITHIN_MS + 1);
    for (let index = 0; index < BACKFILL_MAX_CHANNELS + 5; index += 1) {
      activity.record(`busy-${index}`, String(100 + index));
    }
    await backfill.run();
    expect(requests).toHaveLength(BACKFILL_MAX_CHANNELS);
    expect(requests.map((request) => request.channelId)).not.toContain('quiet');
  });

  it('goes on with the other channels when one fetch fails', async () => {
    const { activity, delivered, backfill } = setup((channelId) =>
      channelId === 'broken'
        ? Promise.reject(new Error('Missing Access'))
        : Promise.resolve([{ id: '21' }]),
    );
    activity.record('fine', '20');
    activity.record('broken', '5');
    await backfill.run();
    expect(delivered).toEqual(['21']);
  });
});
