import { describe, expect, it } from 'vitest';
import { silentLogger, type Logger } from '../../core/logger.ts';
import { compareSnowflakes, type HistoryMessage } from '../client/inbound-message.ts';
import { ChannelHistory } from './channel-history.ts';

function message(id: string, content = `m${id}`): HistoryMessage {
  return {
    id,
    authorId: 'u',
    authorName: 'ann',
    authorIsBot: false,
    content,
    createdAt: Number(id),
    attachments: [],
  };
}

describe('ChannelHistory', () => {
  it('fills from Discord once, then serves gateway events without fetching', async () => {
    let fetches = 0;
    const history = new ChannelHistory({
      perChannel: 5,
      maxChannels: 10,
      fetchRecent: () => {
        fetches += 1;
        return Promise.resolve([message('3'), message('2'), message('1')]);
      },
    });
    history.add('c', message('4'));
    expect((await history.recent('c')).map((item) => item.id)).toEqual(['1', '2', '3', '4']);
    history.add('c', message('5'));
    history.update('c', { id: '2', content: 'edited' });
    history.remove('c', '3');
    const recent = await history.recent('c');
    expect(recent.map((item) => item.id)).toEqual(['1', '2', '4', '5']);
    expect(recent[1]?.content).toBe('edited');
    expect(fetches).toBe(1);
  });

  it('keeps only the newest messages per channel and drops the least recently used channel', async () => {
    const history = new ChannelHistory({
      perChannel: 2,
      maxChannels: 2,
      fetchRecent: () => Promise.resolve([]),
    });
    for (const id of ['1', '2', '3']) history.add('a', message(id));
    history.add('b', message('9'));
    history.add('c', message('8'));
    expect((await history.recent('a')).map((item) => item.id)).toEqual([]);
    expect((await history.recent('c')).map((item) => item.id)).toEqual(['8']);
  });

  it('fetches once even when several turns start together', async () => {
    let fetches = 0;
    const history = new ChannelHistory({
      perChannel: 5,
      maxChannels: 10,
      fetchRecent: () => {
        fetches += 1;
        return Promise.resolve([message('1')]);
      },
    });
    await Promise.all([history.recent('c'), history.recent('c'), history.recent('c')]);
    expect(fetches).toBe(1);
  });

  it('orders snowflakes beyond 2^53 correctly', () => {
    expect(compareSnowflakes('9007199254740993', '9007199254740992')).toBe(1);
    expect(compareSnowflakes('99', '100')).toBe(-1);
  });
});

describe('ChannelHistory when Discord cannot give the history', () => {
  function warnings() {
    const seen: string[] = [];
    const logger: Logger = {
      ...silentLogger,
      warn: (first: object | string, text?: string) =>
        seen.push(typeof first === 'string' ? first : (text ?? '')),
      child: () => logger,
    };
    return { seen, logger };
  }

  it('answers with what it has, logs the failure once, and tries again next time', async () => {
    const { seen, logger } = warnings();
    const answers: Array<() => Promise<HistoryMessage[]>> = [
      () => Promise.reject(new Error('500: Server Error')),
      () => Promise.resolve({ messages: 'not a list' } as unknown as HistoryMessage[]),
      () => Promise.resolve([message('1')]),
    ];
    const history = new ChannelHistory({
      perChannel: 5,
      maxChannels: 10,
      fetchRecent: () => answers.shift()!(),
      logger,
    });
    history.add('c', message('2'));
    const [first, second] = await Promise.all([history.recent('c'), history.recent('c')]);
    expect(first.map((item) => item.id)).toEqual(['2']);
    expect(second.map((item) => item.id)).toEqual(['2']);
    expect(seen).toHaveLength(1);
    expect((await history.recent('c')).map((item) => item.id)).toEqual(['2']);
    expect(seen).toHaveLength(2);
    expect((await history.recent('c')).map((item) => item.id)).toEqual(['1', '2']);
    expect(seen).toHaveLength(2);
  });

  it('places a message by its time: a member message delivered after an older bot write', async () => {
    const history = new ChannelHistory({
      perChannel: 3,
      maxChannels: 10,
      fetchRecent: () => Promise.resolve([message('1')]),
    });
    await history.recent('c');
    history.add('c', message('5'));
    history.add('c', message('3'));
    history.add('c', message('5'));
    expect((await history.recent('c')).map((item) => item.id)).toEqual(['1', '3', '5']);
    history.add('c', message('4'));
    expect((await history.recent('c')).map((item) => item.id)).toEqual(['3', '4', '5']);
  });
});
