import fc from 'fast-check';
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

describe('assembleContext with a cheap upper bound', () => {
  const exact = budget(0).counter;
  /** Counts like the tests' counter; bounds at twice that, and tallies the exact counts. */
  const bounding = () => {
    const counted: string[] = [];
    const counter: ContextBudget['counter'] = {
      countText: exact.countText,
      countMessages: (messages) => {
        counted.push(...messages.flatMap((message) => message.content.map((part) => part.type)));
        return exact.countMessages(messages);
      },
      boundMessages: (messages) => 2 * exact.countMessages(messages),
    };
    return { counter, counted };
  };
  const histories = fc.array(
    fc.record({
      role: fc.constantFrom('user' as const, 'assistant' as const),
      text: fc.string({ minLength: 1, maxLength: 40 }),
      importance: fc.double({ min: 0, max: 1, noNaN: true }),
      pinned: fc.boolean(),
    }),
    { maxLength: 30 },
  );

  it('chooses what exact counting chooses, whatever the budget', () => {
    fc.assert(
      fc.property(
        histories,
        fc.integer({ min: 60, max: 6_000 }),
        fc.nat(3),
        (history, contextWindow, dropOldest) => {
          const entries = history.map((item) => ({ ...entry(item.role, item.text), ...item }));
          const assemble = (counter: ContextBudget['counter']) =>
            assembleContext({
              system: 'sys',
              history: entries,
              reminders: [],
              finalUserParts: [{ type: 'text', text: 'now' }],
              budget: { ...budget(contextWindow), counter },
              dropOldest,
            });
          const counted = assemble(exact);
          const bounded = assemble(bounding().counter);
          expect(bounded.messages).toEqual(counted.messages);
          expect(bounded.includedHistory).toBe(counted.includedHistory);
          expect(bounded.promptTokens).toBeGreaterThanOrEqual(counted.promptTokens);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('does not count a history that fits with room to spare, and counts one that may not', () => {
    const history = Array.from({ length: 20 }, (_, index) =>
      entry(index % 2 === 0 ? 'user' : 'assistant', `line ${index}`),
    );
    const assemble = (contextWindow: number) => {
      const { counter, counted } = bounding();
      assembleContext({
        system: 'sys',
        history,
        reminders: [],
        finalUserParts: [{ type: 'text', text: 'now' }],
        budget: { ...budget(contextWindow), counter },
      });
      return counted.length;
    };
    // Only the final message is counted exactly.
    expect(assemble(100_000)).toBe(1);
    expect(assemble(400)).toBe(1 + history.length);
  });
});
