import { describe, expect, it } from 'vitest';
import { defaultScopeSettings } from '../core/settings.ts';
import { humanizeText, humanizerPlan } from './humanizer-plan.ts';
import { humanizerStyleHint } from './style-hint.ts';

describe('humanizer degrees', () => {
  const text = 'Hello There. I am **Fine**.';

  it('starts a new scope at degree 1: text unchanged, a style hint for the system prompt', () => {
    const degree = defaultScopeSettings('guild-1').humanizerDegree;
    expect(degree).toBe(1);
    expect(humanizeText(text, degree)).toBe(text);
    expect(humanizerStyleHint(degree)).toMatch(/chat/);
  });

  it('degree 0 changes nothing and adds no hint', () => {
    expect(humanizeText(text, 0)).toBe(text);
    expect(humanizerStyleHint(0)).toBeUndefined();
  });

  it('degree 2 keeps the text but paces paragraph messages', () => {
    expect(humanizeText(text, 2)).toBe(text);
    expect(humanizerPlan(2)).toMatchObject({ messageUnit: 'paragraph', typingPacing: true });
  });

  it('degree 3 sends sentences, paced, rewritten casually', () => {
    expect(humanizerPlan(3)).toMatchObject({ messageUnit: 'sentence', typingPacing: true });
    expect(humanizeText(text, 3)).toBe('hello there. i am **fine**');
    expect(humanizerPlan(1)).toMatchObject({ messageUnit: 'paragraph', typingPacing: false });
  });
});
