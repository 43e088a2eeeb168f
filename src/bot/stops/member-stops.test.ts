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
    waitingIn: () => [],
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

describe('MemberStops for a character named in a stop', () => {
  /** A member's scene waiting in the queue, its next turn Bob's; nothing live here. */
  function waitingScene(authorId: string) {
    const silenced = new Set<string>();
    const waiting = {
      message: { id: '300000000000000002', authorId },
      facts: { scene: { silenced } },
    };
    const withdrawals: string[] = [];
    const stops = new MemberStops({
      stops: new StopRegistry(),
      queue: {
        waiting: () => 1,
        waitingIn: () => [waiting],
        withdraw: (channelId: string) => {
          withdrawals.push(channelId);
          return [];
        },
      },
      logger: silentLogger,
    });
    return { stops, silenced, withdrawals };
  }

  const bobStop = {
    ...inbound,
    content: 'Bob, stop',
  };
  const addressees = [{ id: 'bob-id', names: ['Bob'] }];

  it('silences the character in the member’s waiting scene and withdraws nothing', async () => {
    const { stops, silenced, withdrawals } = waitingScene(inbound.authorId);
    const heard = { inbound: bobStop, addressForms: [], addressees, isModerator: false };
    expect(await stops.stopOrWithdraw(heard)).toBe(true);
    expect([...silenced]).toEqual(['bob-id']);
    expect(withdrawals).toEqual([]);
  });

  it('leaves another member’s scene alone, unless a moderator says it', async () => {
    const { stops, silenced } = waitingScene('200000000000000009');
    const heard = { inbound: bobStop, addressForms: [], addressees, isModerator: false };
    expect(await stops.stopOrWithdraw(heard)).toBe(false);
    expect(silenced.size).toBe(0);
    expect(await stops.stopOrWithdraw({ ...heard, isModerator: true })).toBe(true);
    expect([...silenced]).toEqual(['bob-id']);
  });
});
