import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../core/logger.ts';
import { StopRegistry } from '../../stream/stop/stop-registry.ts';
import type { InboundMessage } from '../client/inbound-message.ts';
import type { CrossProcessMessageDecision } from './cross-process-stops.ts';
import { MemberStops, type WaitingMessage, type WaitingMessages } from './member-stops.ts';

const CHANNEL = '100000000000000001';

const inbound: InboundMessage = {
  id: '300000000000000001',
  channelId: CHANNEL,
  guildId: '400000000000000001',
  authorId: '200000000000000001',
  authorName: 'Alice',
  authorIsBot: false,
  content: '@Tomodachi stop',
  createdAt: 0,
  isDM: false,
  mentionsBot: true,
  repliesToBot: false,
  replyToMessageId: undefined,
  attachments: [],
};

/** A process with no live turn; the reply streams elsewhere and that process decides `remote`. */
function memberStops(remote: CrossProcessMessageDecision | undefined) {
  const withdrawals: string[] = [];
  const queue: WaitingMessages<WaitingMessage> = {
    waiting: () => 1,
    withdraw: (channelId: string) => {
      withdrawals.push(channelId);
      return [];
    },
  };
  const stops = new MemberStops({
    stops: new StopRegistry(),
    remoteStops: {
      shared: true,
      considerElsewhere: () => Promise.resolve(remote),
      stoppedFor: () => false,
    },
    queue,
    logger: silentLogger,
  });
  const heard = { inbound, addressForms: ['@Tomodachi'], isModerator: false };
  return { stopOrWithdraw: () => stops.stopOrWithdraw(heard), withdrawals };
}

describe('MemberStops for a reply another process streams', () => {
  it('takes a stop sent but not yet confirmed as a stop: nothing withdrawn, nothing answered', async () => {
    const { stopOrWithdraw, withdrawals } = memberStops({ stopped: false, reason: 'unconfirmed' });
    expect(await stopOrWithdraw()).toBe(true);
    expect(withdrawals).toEqual([]);
  });

  it('withdraws the waiting messages instead when nothing is live anywhere', async () => {
    const { stopOrWithdraw, withdrawals } = memberStops(undefined);
    expect(await stopOrWithdraw()).toBe(false);
    expect(withdrawals).toEqual([CHANNEL]);
  });
});
