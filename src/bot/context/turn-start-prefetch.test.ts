import { describe, expect, it } from 'vitest';
import type { TurnStart } from '../../db/turn-start-repository.ts';
import { ManualClock } from '../../stream/testing/manual-clock.ts';
import {
  PREFETCH_PAUSE_AFTER_LOST_CLAIM_MS,
  prefetchedRead,
  TurnStartPrefetch,
  type TurnStartKey,
} from './turn-start-prefetch.ts';

const KEY: TurnStartKey = {
  channelId: 'c1',
  scopeId: 'g1',
  authorId: 'm1',
  characterId: undefined,
};

function startOf(summary: string): TurnStart {
  return {
    resetAt: undefined,
    summary,
    memories: { server: [], personal: [], character: [] },
    turns: [],
  };
}

/** A prefetch whose reads answer what `answers` says, and the keys it was asked for. */
function prefetchReading(answers: (key: TurnStartKey) => Promise<TurnStart>) {
  const asked: TurnStartKey[] = [];
  const prefetch = new TurnStartPrefetch((key) => {
    asked.push(key);
    return answers(key);
  });
  return { prefetch, asked };
}

describe('TurnStartPrefetch', () => {
  it('answers the turn of the one message it was begun for, with the same key', async () => {
    const { prefetch, asked } = prefetchReading((key) => Promise.resolve(startOf(key.authorId)));
    prefetch.begin('msg1', KEY);
    const taken = prefetch.take('c1', ['msg1']);
    expect(asked).toEqual([KEY]);
    await expect(prefetchedRead(taken, KEY)).resolves.toEqual(startOf('m1'));
    expect(prefetch.size).toBe(0);
  });

  it('is not used for another speaker, author or scope', () => {
    const { prefetch } = prefetchReading(() => Promise.resolve(startOf('x')));
    prefetch.begin('msg1', KEY);
    const taken = prefetch.take('c1', ['msg1']);
    expect(prefetchedRead(taken, { ...KEY, characterId: 'alice' })).toBeUndefined();
    expect(prefetchedRead(taken, { ...KEY, authorId: 'm2' })).toBeUndefined();
    expect(prefetchedRead(taken, { ...KEY, scopeId: 'g2' })).toBeUndefined();
  });

  it("lets go of every read of the channel at a turn's start: a later turn reads again", () => {
    const { prefetch } = prefetchReading(() => Promise.resolve(startOf('x')));
    prefetch.begin('msg1', KEY);
    prefetch.begin('msg2', KEY);
    prefetch.begin('other', { ...KEY, channelId: 'c2' });
    // msg1's turn starts: msg2's read was made before that turn's reply existed.
    expect(prefetch.take('c1', ['msg1'])).toBeDefined();
    expect(prefetch.take('c1', ['msg2'])).toBeUndefined();
    // Another channel's read is untouched.
    expect(prefetch.take('c2', ['other'])).toBeDefined();
    expect(prefetch.size).toBe(0);
  });

  it('is not used by a turn that answers several messages', () => {
    const { prefetch } = prefetchReading(() => Promise.resolve(startOf('x')));
    prefetch.begin('msg1', KEY);
    expect(prefetch.take('c1', ['msg0', 'msg1'])).toBeUndefined();
    expect(prefetch.size).toBe(0);
  });

  it('answers undefined for a read that failed, so the turn reads itself', async () => {
    const { prefetch } = prefetchReading(() => Promise.reject(new Error('connection refused')));
    prefetch.begin('msg1', KEY);
    await expect(prefetchedRead(prefetch.take('c1', ['msg1']), KEY)).resolves.toBeUndefined();
  });

  it('drops the read of a message that gets no turn, and begins one read per message', () => {
    const { prefetch, asked } = prefetchReading(() => Promise.resolve(startOf('x')));
    prefetch.begin('msg1', KEY);
    prefetch.begin('msg1', KEY);
    expect(asked).toHaveLength(1);
    prefetch.drop('msg1');
    expect(prefetch.take('c1', ['msg1'])).toBeUndefined();
  });

  it('has at most 4 reads on their way at once, and begins more once they are answered', async () => {
    const answers: Array<() => void> = [];
    const { prefetch, asked } = prefetchReading(
      () =>
        new Promise((resolve) => {
          answers.push(() => resolve(startOf('x')));
        }),
    );
    for (let index = 0; index < 10; index += 1) {
      prefetch.begin(`msg${index}`, { ...KEY, channelId: `c${index}` });
    }
    expect(asked).toHaveLength(4);
    for (const answer of answers.splice(0)) answer();
    await new Promise((resolve) => setImmediate(resolve));
    prefetch.begin('msg10', { ...KEY, channelId: 'c10' });
    expect(asked).toHaveLength(5);
  });

  it('holds a bounded number of reads not yet taken', async () => {
    const { prefetch } = prefetchReading(() => Promise.resolve(startOf('x')));
    for (let index = 0; index < 300; index += 1) {
      prefetch.begin(`msg${index}`, { ...KEY, channelId: `c${index}` });
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(prefetch.size).toBe(256);
  });

  it('begins no read for a while after another process won a claim (processes sharing the messages)', async () => {
    const clock = new ManualClock();
    const asked: TurnStartKey[] = [];
    const prefetch = new TurnStartPrefetch((key) => {
      asked.push(key);
      return Promise.resolve(startOf('s'));
    }, clock);
    prefetch.lostClaim();
    prefetch.begin('msg1', KEY);
    expect(asked).toEqual([]);
    await clock.advance(PREFETCH_PAUSE_AFTER_LOST_CLAIM_MS - 1);
    prefetch.begin('msg2', KEY);
    expect(asked).toEqual([]);
    await clock.advance(1);
    prefetch.begin('msg3', KEY);
    expect(asked).toEqual([KEY]);
    expect(prefetch.take('c1', ['msg3'])).toBeDefined();
  });
});
