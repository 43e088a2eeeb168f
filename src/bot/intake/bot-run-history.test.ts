import { describe, expect, it } from 'vitest';
import { defaultScopeSettings } from '../../core/settings.ts';
import { botRunFromHistory, recallBotRun } from './bot-run-history.ts';
import type { HistoryMessage } from '../client/inbound-message.ts';
import { ChannelHistory } from '../context/channel-history.ts';
import type { InboundMessage } from '../client/inbound-message.ts';
import { TriggerDetector } from './trigger-detector.ts';

const BOT = '100000000000000001';
const ROBO = '100000000000000002';
const ANN = '100000000000000003';
const CHANNEL = '300000000000000001';

/** A channel's messages in order; ids grow with the index. */
function channel(...messages: Array<[author: string, replyTo?: number]>): HistoryMessage[] {
  return messages.map(([authorId, replyTo], index) => ({
    id: idAt(index),
    authorId,
    authorName: authorId,
    authorIsBot: authorId !== ANN,
    content: 'text',
    createdAt: index,
    attachments: [],
    replyToMessageId: replyTo === undefined ? undefined : idAt(replyTo),
  }));
}

function idAt(index: number): string {
  return String(200000000000000000n + BigInt(index));
}

describe('botRunFromHistory', () => {
  it('reads back the other bots’ messages answered since a person last wrote', () => {
    const history = channel(
      [ROBO], // 0: answered before Ann wrote: not in the run
      [BOT, 0],
      [ANN], // 2
      [ROBO], // 3
      [BOT, 3],
      [BOT], // 5: the same reply's second message
      [ROBO], // 6: not answered
      [ROBO], // 7
      [BOT, 7],
      [BOT, 2], // 9: a late reply to Ann counts nothing
      [ROBO], // 10: the message being judged
      [BOT, 10],
    );
    expect(botRunFromHistory(history, { botUserId: BOT, beforeId: idAt(10) })).toEqual([
      idAt(3),
      idAt(7),
    ]);
    expect(botRunFromHistory(history, { botUserId: BOT, beforeId: idAt(3) })).toEqual([]);
  });

  it('gives a restarted guard the run it had: a fourth bot reply in a row is refused', async () => {
    const history = channel([ANN], [ROBO], [BOT, 1], [ROBO], [BOT, 3], [ROBO], [BOT, 5], [ROBO]);
    const detector = new TriggerDetector(BOT);
    const settings = {
      ...defaultScopeSettings('400000000000000001'),
      featureFlags: { answerBots: true },
    };
    const inbound: InboundMessage = {
      id: idAt(7),
      channelId: CHANNEL,
      guildId: '400000000000000001',
      authorId: ROBO,
      authorName: 'robo',
      authorIsBot: true,
      content: 'hi',
      createdAt: 7,
      isDM: false,
      mentionsBot: true,
      repliesToBot: false,
      replyToMessageId: undefined,
      attachments: [],
    };
    let fetches = 0;
    const channelHistory = new ChannelHistory({
      perChannel: 50,
      maxChannels: 10,
      fetchRecent: () => {
        fetches += 1;
        return Promise.resolve([...history].reverse());
      },
    });
    await recallBotRun({ detector, history: channelHistory, botUserId: BOT, inbound, settings });
    expect(detector.detect(inbound, settings)).toBeUndefined();
    // Read back once: afterwards the guard counts in memory, and a person resets it.
    await recallBotRun({ detector, history: channelHistory, botUserId: BOT, inbound, settings });
    detector.detect({ ...inbound, id: idAt(8), authorId: ANN, authorIsBot: false }, settings);
    await recallBotRun({ detector, history: channelHistory, botUserId: BOT, inbound, settings });
    expect(detector.detect({ ...inbound, id: idAt(9) }, settings)).toBe('mention');
    expect(fetches).toBe(1);
  });
});
