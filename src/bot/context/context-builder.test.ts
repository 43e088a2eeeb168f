import { describe, expect, it } from 'vitest';
import { UserFacingError } from '../../core/errors.ts';
import { assembleContext, CONVERSATION_OPENS, type ContextBudget } from './context-builder.ts';
import type { ConversationEntry } from './conversation-entries.ts';

/** One token per character keeps the arithmetic of these tests readable. */
const budget = (contextWindow: number, maxOutputTokens = 10): ContextBudget => ({
  contextWindow,
  maxOutputTokens,
  counter: {
    countText: (text) => text.length,
    countMessages: (messages) =>
      messages
        .flatMap((message): Array<{ type: string; text?: string }> => message.content)
        .reduce((sum, part) => sum + (part.text?.length ?? 50), 0),
  },
  toolTokens: 0,
});

const entry = (role: 'user' | 'assistant', text: string): ConversationEntry => ({
  role,
  text,
  createdAt: 0,
  importance: 0.5,
  pinned: false,
});

describe('assembleContext', () => {
  const history = [
    entry('user', 'aaaa'),
    entry('assistant', 'bbbb'),
    entry('user', 'cccc'),
    entry('assistant', 'dddd'),
  ];

  it('includes history newest to oldest while it fits the window minus max output', () => {
    const context = assembleContext({
      system: 'sys',
      history,
      reminders: [],
      finalUserParts: [{ type: 'text', text: 'new' }],
      budget: budget(3 + 3 + 8 + 10),
    });
    expect(context.includedHistory).toBe(2);
    expect(context.availableHistory).toBe(4);
    expect(context.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(context.messages[0]?.content).toEqual([{ type: 'text', text: 'cccc' }]);
    expect(context.promptTokens).toBe(14);
  });

  it('drops the oldest included exchanges on request (context_overflow retry)', () => {
    const retry = (dropOldest: number) =>
      assembleContext({
        system: 's',
        history,
        reminders: [],
        finalUserParts: [{ type: 'text', text: 'new' }],
        budget: budget(1000),
        dropOldest,
      });
    expect(retry(1).includedHistory).toBe(2);
    expect(retry(1).messages[0]?.content).toEqual([{ type: 'text', text: 'cccc' }]);
    const emptied = retry(2);
    expect(emptied.includedHistory).toBe(0);
    expect(emptied.messages.map((message) => message.role)).toEqual(['user']);
    expect(emptied.messages[0]?.content).toEqual([{ type: 'text', text: 'new' }]);
  });

  it('adds the rolling summary to the system prompt as a labelled section, within the budget', () => {
    const context = assembleContext({
      system: 'sys',
      summary: 'ann likes tea',
      history,
      reminders: [],
      finalUserParts: [{ type: 'text', text: 'new' }],
      budget: budget(1000),
    });
    expect(context.system).toMatch(
      /^sys\n\n## Earlier in this channel .*\n<conversation-summary>\nann likes tea\n<\/conversation-summary>$/,
    );
    expect(context.promptTokens).toBe(context.system.length + 3 + 16);
  });

  it('puts reminders right before the final message and merges consecutive user messages', () => {
    const context = assembleContext({
      system: 's',
      history: [entry('user', 'zero'), entry('user', 'one')],
      reminders: ['persona: Mika'],
      finalUserParts: [{ type: 'text', text: 'two' }],
      budget: budget(1000),
    });
    expect(context.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'zero' },
          { type: 'text', text: 'one' },
          { type: 'text', text: '<system-reminder>\npersona: Mika\n</system-reminder>' },
          { type: 'text', text: 'two' },
        ],
      },
    ]);
  });

  it('keeps a history that opens with the speaker’s own words (a greeting) after a note', () => {
    const context = assembleContext({
      system: 's',
      history: [entry('assistant', 'Welcome, traveller!'), entry('user', 'thanks')],
      reminders: [],
      finalUserParts: [{ type: 'text', text: 'a room?' }],
      budget: budget(1000),
    });
    expect(context.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: CONVERSATION_OPENS }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Welcome, traveller!' }] },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'thanks' },
          { type: 'text', text: 'a room?' },
        ],
      },
    ]);
  });

  it('refuses a new message that alone does not fit, with the token count', () => {
    expect(() =>
      assembleContext({
        system: 's',
        history,
        reminders: [],
        finalUserParts: [{ type: 'text', text: 'x'.repeat(200) }],
        budget: budget(100),
      }),
    ).toThrow(UserFacingError);
  });
});
