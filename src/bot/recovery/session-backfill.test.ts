import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../core/logger.ts';
import { ManualClock, settle } from '../../stream/testing/manual-clock.ts';
import { ChannelActivity } from './channel-activity.ts';
import {
  BACKFILL_ACTIVE_WITHIN_MS,
  BACKFILL_MAX_CHANNELS,
  BACKFILL_MESSAGES_PER_CHANNEL,
  BACKFILL_RETRY_DELAYS_MS,
  SessionBackfill,
  type SessionBackfillOptions,
} from './session-backfill.ts';

interface Message {
  id: string;
  /** Set on a reply of the bot's: the message it answers. */
  answers?: string;
}

class GoneError extends Error {}

function setup(
  fetchAfter: (channelId: string, afterId: string) => Promise<Message[]>,
  discover?: SessionBackfillOptions<Message>['discover'],
) {
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
    repliedTo: (message) => message.answers,
    deliver: (message) => {
      delivered.push(message.id);
      return Promise.resolve();
    },
    isPermanent: (error) => error instanceof GoneError,
    ...(discover === undefined ? {} : { discover }),
    clock,
    logger: silentLogger,
  });
  return { clock, activity, delivered, requests, backfill };
}

describe('SessionBackfill', () => {
  it('does not deliver a message a reply of the bot in the same read answers', async () => {
    const { activity, delivered, requests, backfill } = setup(() =>
      Promise.resolve([{ id: '13', answers: '11' }, { id: '11' }, { id: '12' }, { id: '14' }]),
    );
    activity.record('c1', '10');
    await backfill.run();
    // 11 was answered (a database that does not know it would answer it again); the bot's own
    // reply goes the normal way (the router ignores it).
    expect(delivered).toEqual(['12', '13', '14']);
    await backfill.run();
    expect(requests[1]?.afterId).toBe('14');
  });

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

  it('goes on with the other channels when one is gone, and never reads it again', async () => {
    const { activity, delivered, requests, backfill } = setup((channelId) =>
      channelId === 'gone'
        ? Promise.reject(new GoneError('Unknown Channel'))
        : Promise.resolve([{ id: '21' }]),
    );
    activity.record('fine', '20');
    activity.record('gone', '5');
    await backfill.run();
    expect(delivered).toEqual(['21']);
    expect(requests.filter((request) => request.channelId === 'gone')).toHaveLength(1);
  });

  it('reads a channel whose read failed for a moment again, from the same mark', async () => {
    let failures = 2;
    const { clock, activity, delivered, requests, backfill } = setup((channelId) => {
      if (channelId === 'flaky' && failures > 0) {
        failures -= 1;
        return Promise.reject(new Error('Service Unavailable'));
      }
      return Promise.resolve(channelId === 'flaky' ? [{ id: '31' }, { id: '32' }] : []);
    });
    activity.record('flaky', '30');
    const done = backfill.run();
    await settle();
    expect(delivered).toEqual([]);
    // A live message of the channel meanwhile must not move the retry past what was missed.
    activity.record('flaky', '40');
    await clock.advance(BACKFILL_RETRY_DELAYS_MS[0] ?? 0);
    await clock.advance(BACKFILL_RETRY_DELAYS_MS[1] ?? 0);
    await done;
    expect(delivered).toEqual(['31', '32']);
    expect(requests.map((request) => request.afterId)).toEqual(['30', '30', '30']);
  });

  it('gives up on a channel after the last wait', async () => {
    const { clock, activity, requests, backfill } = setup(() =>
      Promise.reject(new Error('Service Unavailable')),
    );
    activity.record('down', '1');
    const done = backfill.run();
    for (const delay of BACKFILL_RETRY_DELAYS_MS) {
      await settle();
      await clock.advance(delay);
    }
    await done;
    expect(requests).toHaveLength(BACKFILL_RETRY_DELAYS_MS.length + 1);
  });

  it('also reads channels Discord says were active that carry no mark, from the window’s start', async () => {
    let asked: { withinMs: number; known: ReadonlySet<string> } | undefined;
    const { clock, activity, delivered, requests, backfill } = setup(
      (channelId) => Promise.resolve(channelId === 'unseen' ? [{ id: '51' }] : []),
      (options) => {
        asked = options;
        return [{ channelId: 'unseen', lastSeenId: '50', lastActivityAt: clock.now() }];
      },
    );
    activity.record('seen', '40');
    await backfill.run();
    expect(asked?.withinMs).toBe(BACKFILL_ACTIVE_WITHIN_MS);
    expect([...(asked?.known ?? [])]).toEqual(['seen']);
    expect(requests.map((request) => [request.channelId, request.afterId])).toEqual(
      expect.arrayContaining([
        ['seen', '40'],
        ['unseen', '50'],
      ]),
    );
    expect(delivered).toEqual(['51']);
  });
});
