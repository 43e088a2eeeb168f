import { describe, expect, it } from 'vitest';
import { UnrecordedReplies, type UnrecordedReply } from './unrecorded-replies.ts';

function reply(turnId: string, channelId = 'channel-1'): UnrecordedReply {
  return {
    turnId,
    channelId,
    botUserId: 'bot',
    botName: 'Tomodachi',
    triggerMessageId: `trigger-${turnId}`,
    startedAt: new Date(1_000),
    end: {
      content: `reply ${turnId}`,
      discordMessageIds: [`m-${turnId}`],
      status: 'complete',
      metrics: {},
    },
  };
}

describe('UnrecordedReplies', () => {
  it('shows a reply the database still refuses as a stored turn, and tries again next time', async () => {
    const replies = new UnrecordedReplies();
    replies.hold(reply('t1'));
    const refused = await replies.reconcile('channel-1', () => Promise.reject(new Error('down')));
    expect(refused).toMatchObject([
      { id: 't1', role: 'assistant', content: 'reply t1', discordMessageIds: ['m-t1'] },
    ]);
    const written: string[] = [];
    const after = await replies.reconcile('channel-1', (held) => {
      written.push(held.turnId);
      return Promise.resolve();
    });
    expect([after, written]).toEqual([[], ['t1']]);
    expect(await replies.reconcile('channel-1', () => Promise.reject(new Error('no')))).toEqual([]);
  });

  it('keeps channels apart and writes nothing for a channel with nothing held', async () => {
    const replies = new UnrecordedReplies();
    replies.hold(reply('t1', 'channel-1'));
    let writes = 0;
    const other = await replies.reconcile('channel-2', () => {
      writes += 1;
      return Promise.resolve();
    });
    expect([other, writes]).toEqual([[], 0]);
  });
});
