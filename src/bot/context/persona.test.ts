import { describe, expect, it } from 'vitest';
import type { Memory } from '../../db/memory-repository.ts';
import { buildReminders } from './persona.ts';

function memory(content: string, characterId?: string): Memory {
  return {
    id: content,
    kind: 'user',
    ownerId: 'mika',
    characterId,
    authorId: 'mika',
    content,
    createdAt: new Date(0),
  };
}

const BASE = {
  serverMemories: [],
  authorName: 'Mika',
  now: new Date('2026-11-01T12:00:00Z'),
  timeZone: undefined,
  isDM: false,
};

describe('the reminders before the final message', () => {
  it('tells the bot what it remembers about the author', () => {
    const reminders = buildReminders({
      ...BASE,
      personaName: undefined,
      personalMemories: [memory('likes tea')],
    });
    expect(reminders).toContain('What you remember about Mika:\n- likes tea');
  });

  it('tells a character what it remembers itself apart from what is known to all', () => {
    const reminders = buildReminders({
      ...BASE,
      personaName: 'Alice',
      personalMemories: [memory('likes tea')],
      characterMemories: [memory('owes Alice two silver', 'alice-id')],
    });
    expect(reminders).toContain('What is known about Mika:\n- likes tea');
    expect(reminders).toContain('What you remember about Mika:\n- owes Alice two silver');
    expect(reminders[0]).toBe('Stay in character as Alice.');
  });
});
