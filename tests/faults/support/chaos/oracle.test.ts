import { describe, expect, it } from 'vitest';
import { readConversation } from './chaos-provider.ts';
import { judgeChaos, type ChannelMessage, type MentionRecord, type ModelCall } from './oracle.ts';

function mention(index: number, channelId = 'c1'): MentionRecord {
  return {
    index,
    token: `Q000${index}zab`,
    messageId: `m${index}`,
    channelId,
    channelName: channelId,
    authorName: 'alice',
    postedAt: index * 1000,
  };
}

function call(id: number, tokens: string[], options: Partial<ModelCall> = {}): ModelCall {
  const reply = `Answer A${id}, all noted and settled.`;
  return {
    id,
    arrivedAt: id * 1000,
    newTokens: tokens,
    assistantTexts: [],
    reply,
    streamed: reply,
    fate: 'answered',
    ...options,
  };
}

function botMessage(id: string, content: string, options: Partial<ChannelMessage> = {}) {
  return {
    id,
    channelId: 'c1',
    authorIsBot: true,
    content,
    replyTo: undefined,
    shownAt: 0,
    ...options,
  } satisfies ChannelMessage;
}

describe('the chaos oracle', () => {
  it('counts a mention answered when the reply of a call carrying it shows in its channel', () => {
    const judgement = judgeChaos({
      mentions: [mention(1)],
      calls: [call(5, ['Q0001zab'])],
      messages: [botMessage('b1', 'Answer A5, all noted\nand settled.', { replyTo: 'm1' })],
    });
    expect(judgement.verdicts.map((verdict) => verdict.outcome)).toEqual(['answered']);
  });

  it('counts a mention lost when only part of its reply shows, without a notice', () => {
    const dropped = call(5, ['Q0001zab'], {
      reply: undefined,
      streamed: 'Answer A5, ',
      fate: 'dropped',
    });
    const judgement = judgeChaos({
      mentions: [mention(1)],
      calls: [dropped],
      messages: [botMessage('b1', 'Answer A5,', { replyTo: 'm1' })],
    });
    expect(judgement.verdicts.map((verdict) => verdict.outcome)).toEqual(['lost']);
  });

  it('counts every mention of a coalesced batch told by a notice replying to its last', () => {
    const failed = call(5, ['Q0001zab', 'Q0002zab'], {
      reply: undefined,
      streamed: '',
      fate: 'failed',
    });
    const judgement = judgeChaos({
      mentions: [mention(1), mention(2)],
      calls: [failed],
      messages: [botMessage('b1', 'The model is busy right now.', { replyTo: 'm2' })],
    });
    expect(judgement.verdicts.map((verdict) => verdict.outcome)).toEqual(['told', 'told']);
  });

  it('counts a mention twice when two delivered answers cover it', () => {
    const judgement = judgeChaos({
      mentions: [mention(1)],
      calls: [call(5, ['Q0001zab']), call(6, ['Q0001zab'])],
      messages: [
        botMessage('b1', 'Answer A5, all noted and settled.'),
        botMessage('b2', 'Answer A6, all noted and settled.'),
      ],
    });
    expect(judgement.verdicts[0]?.twice).toBe(true);
  });

  it('finds a delivered answer missing from a later call of the channel', () => {
    const later = call(9, ['Q0002zab'], {
      arrivedAt: 50_000,
      assistantTexts: ['Answer A1, other.'],
    });
    const carried = call(10, ['Q0003zab'], {
      arrivedAt: 60_000,
      assistantTexts: ['Answer A5, all noted and settled.'],
    });
    const judgement = judgeChaos({
      mentions: [mention(1), mention(2), mention(3)],
      calls: [call(5, ['Q0001zab']), later, carried],
      messages: [botMessage('b1', 'Answer A5, all noted and settled.', { shownAt: 10_000 })],
    });
    expect(judgement.contextMisses.map((miss) => [miss.answer.id, miss.laterCall.id])).toEqual([
      [5, 9],
    ]);
  });

  it('reads new mention tokens after the last assistant message only', () => {
    const conversation = readConversation({
      messages: [
        { role: 'system', content: 'be kind' },
        { role: 'user', content: 'alice: question Q0001zab' },
        { role: 'assistant', content: 'Answer A1, all noted and settled.' },
        { role: 'user', content: [{ type: 'text', text: 'bob: question Q0002zcd, more' }] },
      ],
    });
    expect(conversation).toEqual({
      newTokens: ['Q0002zcd'],
      assistantTexts: ['Answer A1, all noted and settled.'],
    });
  });
});
