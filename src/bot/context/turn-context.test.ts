import { describe, expect, it } from 'vitest';
import type { ContextTurn } from '../../db/context-turn-repository.ts';
import type { HistoryMessage } from '../client/inbound-message.ts';
import { historyBefore, seenUnanswered, unansweredBefore } from './turn-context.ts';

const NO_REPLIES: ReadonlySet<string> = new Set();

const BOT = '100';

function said(id: string, authorId: string, content: string, createdAt: number): HistoryMessage {
  return {
    id,
    authorId,
    authorName: authorId === BOT ? 'Tomodachi' : `member${authorId}`,
    authorIsBot: authorId === BOT,
    content,
    createdAt,
    attachments: [],
  };
}

function reply(messageId: string, content: string, createdAt: number): ContextTurn {
  return {
    id: `turn-${messageId}`,
    role: 'assistant',
    authorId: BOT,
    authorName: null,
    triggerMessageId: '1001',
    discordMessageIds: [messageId],
    content,
    createdAt: new Date(createdAt),
    status: 'complete',
    importance: 0.5,
    pinned: false,
    unfinished: false,
  };
}

describe('the history before a turn', () => {
  it('keeps the reply to the turn before when it was posted after the batch being answered arrived', () => {
    // alice asks (1001); bob (1002) and carol (1003) ask while the bot answers alice: they are
    // coalesced into the next turn, and the answer to alice (1004) is posted after both.
    const window = [
      said('1001', '7', 'what is a mole?', 1_000),
      said('1002', '8', 'and a gram?', 1_100),
      said('1003', '9', 'and a litre?', 1_200),
      said('1004', BOT, 'A mole is 6.022e23 of something.', 1_300),
    ];
    const entries = historyBefore(
      { botUserId: BOT, messages: [{ id: '1002' }, { id: '1003' }] },
      {
        window,
        stored: [reply('1004', 'A mole is 6.022e23 of something.', 1_250)],
        resetAt: undefined,
      },
    );
    expect(entries.map((entry) => [entry.role, entry.text])).toEqual([
      ['user', '[member7 (id 7)]: what is a mole?'],
      ['assistant', 'A mole is 6.022e23 of something.'],
    ]);
  });

  it('leaves out member messages posted after the last one being answered (the next turn has them)', () => {
    const window = [
      said('1001', '7', 'first', 1_000),
      said('1002', '8', 'answered now', 1_100),
      said('1003', '9', 'for the next turn', 1_200),
    ];
    const entries = historyBefore(
      { botUserId: BOT, messages: [{ id: '1002' }] },
      { window, stored: [], resetAt: undefined },
    );
    expect(entries.map((entry) => entry.text)).toEqual(['[member7 (id 7)]: first']);
  });
});

describe('the unanswered tail before a turn', () => {
  const live = (id: string) => ({ id, isDM: false });

  it('is the members’ messages after the bot’s last message, before the batch, not in it', () => {
    const window = [
      said('1001', '7', 'first question', 1),
      said('1002', BOT, 'first answer', 2),
      // Owed from before a restart, its mention shown as a name (as Discord messages read here).
      { ...said('1003', '7', '@Tomodachi owed question', 3), mentionsBot: true },
      { ...said('1004', '9', 'another bot chatting', 4), authorIsBot: true },
      said('1005', '8', 'more from another member', 5),
      { ...said('1006', '8', 'a reply to the bot', 6), replyToMessageId: '1002' },
      said('1007', '8', 'the live question', 7),
      said('1008', '7', 'after the batch: waits for the next turn', 8),
    ];
    const replies = new Set(['1002']);
    expect(
      unansweredBefore({ messages: [live('1007')], botUserId: BOT }, window, replies),
    ).toMatchObject({
      ids: ['1003', '1005', '1006'],
      // What a claim may be owed for: a mention of the bot, a reply to it.
      addressed: ['1003', '1006'],
    });
  });

  it('is empty when the bot replied last before the batch', () => {
    const window = [
      said('1001', '7', 'a question', 1),
      said('1002', BOT, 'an answer', 2),
      said('1003', '7', 'the next question', 3),
    ];
    const replies = new Set(['1002']);
    expect(
      unansweredBefore({ messages: [live('1003')], botUserId: BOT }, window, replies),
    ).toMatchObject({ ids: [], addressed: [] });
  });

  it('reaches past a notice: the model does not see it, so what it followed reads unanswered', () => {
    const window = [
      { ...said('1001', '7', '@Tomodachi a question', 1), mentionsBot: true },
      said('1002', BOT, 'Something went wrong while answering. Please try again.', 2),
      said('1003', '8', 'the live question', 3),
    ];
    expect(
      unansweredBefore({ messages: [live('1003')], botUserId: BOT }, window, NO_REPLIES),
    ).toMatchObject({ ids: ['1001'], addressed: ['1001'] });
  });

  it('leaves out the messages of a coalesced batch; in a DM every message is addressed', () => {
    const window = [
      said('1001', '7', 'one', 1),
      said('1002', '7', 'two', 2),
      said('1003', '7', 'three', 3),
    ];
    const batch = [
      { id: '1002', isDM: true },
      { id: '1003', isDM: true },
    ];
    expect(unansweredBefore({ messages: batch, botUserId: BOT }, window, NO_REPLIES)).toMatchObject(
      {
        ids: ['1001'],
        addressed: ['1001'],
      },
    );
  });
});

describe('the unanswered tail the request shows', () => {
  it('keeps only messages whose text stands after the last assistant message', () => {
    const tail = {
      ids: ['1', '2', '3'],
      addressed: ['1', '3'],
      texts: new Map([
        ['1', '[ann (id 7)]: left out by trimming'],
        ['2', '[bob (id 8)]: answered by a reply placed after it'],
        ['3', '[ann (id 7)]: still unanswered'],
      ]),
    };
    const text = (value: string) => [{ type: 'text' as const, text: value }];
    const request = {
      model: 'm',
      system: '',
      tools: [],
      maxOutputTokens: 10,
      temperature: undefined,
      messages: [
        {
          role: 'user' as const,
          content: text('[bob (id 8)]: answered by a reply placed after it'),
        },
        { role: 'assistant' as const, content: text('A reply.') },
        {
          role: 'user' as const,
          content: text('[ann (id 7)]: still unanswered\n[carl (id 9)]: now'),
        },
      ],
    };
    expect(seenUnanswered(tail, request)).toMatchObject({ ids: ['3'], addressed: ['3'] });
  });
});
