import { describe, expect, it } from 'vitest';
import { IMPORTANCE_CORPUS, type ImportanceLabel } from '../../tests/corpora/importance-corpus.ts';
import { HIGH_IMPORTANCE, IMPORTANCE_RULES, importanceOf, scoreImportance } from './importance.ts';

const LOW_IMPORTANCE = 0.4;

function labelOf(score: number): ImportanceLabel {
  if (score >= HIGH_IMPORTANCE) return 'high';
  if (score <= LOW_IMPORTANCE) return 'low';
  return 'normal';
}

describe('importance', () => {
  it('classifies the labelled corpus (en + ja) with at least 90% accuracy', () => {
    expect(IMPORTANCE_CORPUS.length).toBeGreaterThanOrEqual(100);
    const misses = IMPORTANCE_CORPUS.filter(
      (turn) => labelOf(importanceOf(turn.role, turn.text)) !== turn.label,
    );
    const accuracy = 1 - misses.length / IMPORTANCE_CORPUS.length;
    const japanese = IMPORTANCE_CORPUS.filter((turn) =>
      /[\u3040-\u30ff\u4e00-\u9fff]/.test(turn.text),
    );
    console.log(
      `importance accuracy: ${(accuracy * 100).toFixed(1)}% of ${IMPORTANCE_CORPUS.length} turns (${japanese.length} ja)`,
      misses.map((turn) => `${turn.label}: ${turn.text.slice(0, 40)}`),
    );
    expect(japanese.length).toBeGreaterThanOrEqual(30);
    expect(accuracy).toBeGreaterThanOrEqual(0.9);
  });

  it('scores constraints above small talk and keeps every score within 0–1', () => {
    expect(importanceOf('user', 'Always answer in French.')).toBe(0.9);
    expect(importanceOf('user', 'thanks!')).toBe(0.3);
    for (const turn of IMPORTANCE_CORPUS) {
      const score = importanceOf(turn.role, turn.text);
      expect(score).toBeGreaterThanOrEqual(0);
      expect(score).toBeLessThanOrEqual(1);
    }
  });

  it('does not call a constraint small talk because it starts with a greeting', () => {
    expect(scoreImportance('user', 'ok, never use emojis').rules).toEqual(['constraint']);
  });

  it('reads past the mention that addresses the bot', () => {
    expect(importanceOf('user', '<@123456789012345678> lol nice')).toBe(0.3);
  });

  it('boosts long user messages but not long bot replies', () => {
    const long = 'word '.repeat(80);
    expect(importanceOf('user', long)).toBe(0.8);
    expect(importanceOf('assistant', long)).toBe(0.5);
  });

  it('asks questions of the bot only, not of members', () => {
    expect(scoreImportance('assistant', 'Which one do you prefer?').rules).toContain(
      'question-from-the-bot',
    );
    expect(scoreImportance('user', 'Which one do you prefer?').rules).toEqual([]);
  });

  it('is a table of uniquely named rules', () => {
    const names = IMPORTANCE_RULES.map((rule) => rule.name);
    expect(new Set(names).size).toBe(names.length);
  });
});
