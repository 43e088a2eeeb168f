import { describe, expect, it } from 'vitest';
import { selectHistory, type SelectableEntry } from './history-selection.ts';

const user = (importance = 0.7, pinned = false): SelectableEntry => ({
  role: 'user',
  importance,
  pinned,
});
const bot = (importance = 0.5): SelectableEntry => ({
  role: 'assistant',
  importance,
  pinned: false,
});
const options = { pinnedShare: 0.25, recencyFloor: 2, dropOldest: 0 };

describe('selectHistory', () => {
  it('keeps the newest exchanges, then the important ones, in chronological order', () => {
    // 10 exchanges of 10 tokens each; room for 5.
    const entries = Array.from({ length: 10 }, (_, index) => [
      user(index === 1 || index === 3 ? 0.9 : 0.3),
      bot(),
    ]).flat();
    const chosen = selectHistory(entries, () => 5, { ...options, budget: 50 });
    const exchanges = [...new Set(chosen.map((index) => Math.floor(index / 2)))];
    expect(exchanges).toEqual([1, 3, 7, 8, 9]);
    expect(chosen).toEqual([...chosen].sort((a, b) => a - b));
  });

  it('never takes a reply without its question, or half an exchange', () => {
    const entries = [user(0.9), bot(), bot(), user(0.3), bot()];
    const costs = [5, 5, 5, 5, 5];
    const chosen = selectHistory(entries, (index) => costs[index] ?? 0, { ...options, budget: 12 });
    expect(chosen).toEqual([3, 4]);
  });

  it('puts pinned exchanges in first, within their share of the budget', () => {
    const entries = [
      user(0.3, true),
      bot(),
      user(0.3, true),
      bot(),
      ...Array.from({ length: 20 }, () => user(0.9)),
    ];
    const chosen = selectHistory(entries, () => 10, { ...options, budget: 80 });
    // Share: 20 tokens = one pinned exchange of two entries (the newest pin).
    expect(chosen.slice(0, 2)).toEqual([2, 3]);
    expect(chosen).not.toContain(0);
    expect(chosen).toHaveLength(8);
  });

  it('stays within the budget whatever the costs', () => {
    const entries = Array.from({ length: 50 }, (_, index) =>
      index % 3 === 0 ? user(index / 50) : bot(),
    );
    const cost = (index: number) => 1 + ((index * 7) % 13);
    for (const budget of [0, 5, 37, 100, 400]) {
      const chosen = selectHistory(entries, cost, { ...options, budget });
      expect(chosen.reduce((sum, index) => sum + cost(index), 0)).toBeLessThanOrEqual(budget);
    }
  });

  it('leaves out the oldest chosen exchanges for an overflow retry', () => {
    const entries = [user(), bot(), user(), bot(), user(), bot()];
    expect(selectHistory(entries, () => 1, { ...options, budget: 100, dropOldest: 1 })).toEqual([
      2, 3, 4, 5,
    ]);
  });
});
