import { describe, expect, it } from 'vitest';
import type { AcceptedMessage } from '../intake/accepted-message.ts';
import { AnsweredInPassing } from './answered-in-passing.ts';

function accepted(id: string, reason: AcceptedMessage['reason'] = 'mention'): AcceptedMessage {
  return { message: { id }, reason } as unknown as AcceptedMessage;
}

describe('AnsweredInPassing', () => {
  it('splits off what an earlier delivered reply answered, naming that turn', () => {
    const persisted: { channelId: string; keys: readonly string[] }[] = [];
    const inPassing = new AnsweredInPassing({ persist: (answered) => persisted.push(answered) });
    inPassing.note('turn-1', { channelId: 'c1', ids: ['m1', 'm3'], addressed: ['m3'] });
    // Only what a claim may be owed for goes to the ledger.
    expect(persisted).toEqual([{ channelId: 'c1', keys: ['m3'] }]);
    const { owed, answered } = inPassing.split([accepted('m1'), accepted('m2'), accepted('m3')]);
    expect(owed.map((message) => message.message.id)).toEqual(['m2']);
    expect(answered).toEqual([
      { messageId: 'm1', turnId: 'turn-1' },
      { messageId: 'm3', turnId: 'turn-1' },
    ]);
  });

  it('always runs a Retry press: the member asked again', () => {
    const inPassing = new AnsweredInPassing();
    inPassing.note('turn-1', { channelId: 'c1', ids: ['m1'], addressed: ['m1'] });
    const { owed, answered } = inPassing.split([accepted('m1', 'retry')]);
    expect(owed).toHaveLength(1);
    expect(answered).toEqual([]);
  });
});
