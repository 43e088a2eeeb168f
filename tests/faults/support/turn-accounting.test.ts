import { describe, expect, it } from 'vitest';
import {
  accountForTriggers,
  streamingRecords,
  type RecordedTurn,
  type VisibleBotMessage,
} from './turn-accounting.ts';

const CHANNEL = 'c1';
const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second));
const user = (id: string, second: number): RecordedTurn => ({
  role: 'user',
  status: 'complete',
  channelId: CHANNEL,
  triggerMessageId: id,
  discordMessageIds: [id],
  content: 'question',
  createdAt: at(second),
});
const assistant = (
  trigger: string,
  second: number,
  fields: Partial<RecordedTurn> = {},
): RecordedTurn => ({
  role: 'assistant',
  status: 'complete',
  channelId: CHANNEL,
  triggerMessageId: trigger,
  discordMessageIds: [],
  content: '',
  createdAt: at(second),
  ...fields,
});
const shown = (id: string, replyTo: string | undefined, content: string): VisibleBotMessage => ({
  id,
  channelId: CHANNEL,
  replyTo,
  content,
  hasRetry: false,
});
const trigger = (id: string, authorId = 'alice') => ({ id, channelId: CHANNEL, authorId });

describe('turn accounting', () => {
  it('counts a complete reply that is on screen as answered, and a batch with it', () => {
    const verdicts = accountForTriggers({
      triggers: [trigger('m1'), trigger('m2', 'bob')],
      turns: [
        user('m1', 1),
        user('m2', 2),
        assistant('m2', 3, { discordMessageIds: ['b1'], content: 'Hi both' }),
      ],
      botMessages: [shown('b1', 'm2', 'Hi both')],
    });
    expect(verdicts.map((verdict) => verdict.outcome)).toEqual(['answered', 'answered']);
  });

  it('counts a turn that failed in silence, or completed with nothing on screen, as lost', () => {
    const verdicts = accountForTriggers({
      triggers: [trigger('m1'), trigger('m2')],
      turns: [
        user('m1', 1),
        assistant('m1', 2, { status: 'failed' }),
        user('m2', 3),
        assistant('m2', 4, { discordMessageIds: ['gone'], content: 'Deleted or never sent' }),
      ],
      botMessages: [],
    });
    expect(verdicts.map((verdict) => verdict.outcome)).toEqual(['lost', 'lost']);
  });

  it('counts a reply cut short without a word as lost, and with a notice as told', () => {
    const turns = [
      user('m1', 1),
      assistant('m1', 2, { discordMessageIds: ['b1'], content: 'First part. Second part.' }),
    ];
    const partial = shown('b1', 'm1', 'First part.');
    expect(
      accountForTriggers({ triggers: [trigger('m1')], turns, botMessages: [partial] })[0]?.outcome,
    ).toBe('lost');
    const notice = shown('b2', 'm1', 'I could not finish that reply.');
    expect(
      accountForTriggers({ triggers: [trigger('m1')], turns, botMessages: [partial, notice] })[0],
    ).toMatchObject({ outcome: 'told', seen: notice });
  });

  it('does not take the model’s own partial text for a notice', () => {
    const verdicts = accountForTriggers({
      triggers: [trigger('m1')],
      turns: [user('m1', 1), assistant('m1', 2, { status: 'failed' })],
      botMessages: [shown('b1', 'm1', 'Here is the first part')],
      modelTexts: ['Here is the first part of the answer'],
    });
    expect(verdicts[0]?.outcome).toBe('lost');
  });

  it('counts a Retry that answered later as answered, a stop as stopped', () => {
    const verdicts = accountForTriggers({
      triggers: [trigger('m1'), trigger('m2')],
      turns: [
        user('m1', 1),
        assistant('m1', 2, { status: 'failed' }),
        assistant('m1', 5, { discordMessageIds: ['b9'], content: 'Retried answer' }),
        user('m2', 6),
        assistant('m2', 7, { status: 'stopped' }),
      ],
      botMessages: [shown('b9', 'm1', 'Retried answer')],
    });
    expect(verdicts.map((verdict) => verdict.outcome)).toEqual(['answered', 'stopped']);
  });

  it('counts a message never accepted as told only when its author got a note', () => {
    const authors = new Map([
      ['m1', 'alice'],
      ['m2', 'alice'],
      ['m3', 'bob'],
    ]);
    const verdicts = accountForTriggers({
      triggers: [trigger('m1'), trigger('m2'), trigger('m3', 'bob')],
      turns: [],
      botMessages: [shown('n1', 'm1', 'Slow down a little, please.')],
      authorOf: (id) => authors.get(id),
    });
    expect(verdicts.map((verdict) => verdict.outcome)).toEqual(['told', 'told', 'lost']);
  });

  it('counts a turn still streaming as lost, and as a record left streaming', () => {
    const turns = [user('m1', 1), assistant('m1', 2, { status: 'streaming' })];
    expect(
      accountForTriggers({ triggers: [trigger('m1')], turns, botMessages: [] })[0]?.outcome,
    ).toBe('lost');
    expect(streamingRecords(turns)).toBe(1);
  });
});
