/** What the selection needs of a history entry. */
export interface SelectableEntry {
  role: 'user' | 'assistant';
  importance: number;
  pinned: boolean;
}

export interface SelectionOptions {
  /** Tokens the history may use in all. */
  budget: number;
  /** Share of `budget` pinned turns may take (over it, the oldest pins are left out). */
  pinnedShare: number;
  /** The newest exchanges that go in before anything is chosen by importance. */
  recencyFloor: number;
  /** After choosing, leave out this many of the oldest chosen exchanges (overflow retry). */
  dropOldest: number;
}

export const DEFAULT_SELECTION: Omit<SelectionOptions, 'budget' | 'dropOldest'> = {
  pinnedShare: 0.25,
  recencyFloor: 4,
};

interface Exchange {
  first: number;
  last: number;
  cost: number;
  importance: number;
  pinned: boolean;
}

/**
 * Chooses which history entries enter the context:
 * pinned exchanges first within their share of the budget (newest pins first), then the
 * newest exchanges up to the recency floor, then the rest by importance, then recency.
 * An exchange — one member message with the bot replies that follow it — is taken whole or
 * not at all, so nothing is cut mid-turn and no reply goes in without its question. Returns the chosen entry indexes in chronological order.
 */
export function selectHistory(
  entries: readonly SelectableEntry[],
  cost: (index: number) => number,
  options: SelectionOptions,
): number[] {
  const exchanges = groupExchanges(entries, cost);
  const chosen = new Set<Exchange>();
  let used = 0;
  const take = (exchange: Exchange): boolean => {
    if (chosen.has(exchange)) return true;
    if (used + exchange.cost > options.budget) return false;
    chosen.add(exchange);
    used += exchange.cost;
    return true;
  };
  const newestFirst = [...exchanges].reverse();

  let pinnedUsed = 0;
  const pinnedBudget = options.budget * options.pinnedShare;
  for (const exchange of newestFirst) {
    if (!exchange.pinned || pinnedUsed + exchange.cost > pinnedBudget) continue;
    if (take(exchange)) pinnedUsed += exchange.cost;
  }
  for (const exchange of newestFirst.slice(0, options.recencyFloor)) {
    if (!take(exchange)) break;
  }
  const byImportance = newestFirst
    .map((exchange, recency) => ({ exchange, recency }))
    .sort((a, b) => b.exchange.importance - a.exchange.importance || a.recency - b.recency);
  for (const { exchange } of byImportance) take(exchange);

  const kept = exchanges.filter((exchange) => chosen.has(exchange)).slice(options.dropOldest);
  return kept.flatMap((exchange) =>
    Array.from(
      { length: exchange.last - exchange.first + 1 },
      (_, offset) => exchange.first + offset,
    ),
  );
}

function groupExchanges(
  entries: readonly SelectableEntry[],
  cost: (index: number) => number,
): Exchange[] {
  const exchanges: Exchange[] = [];
  entries.forEach((entry, index) => {
    const current = exchanges.at(-1);
    if (current === undefined || entry.role === 'user') {
      exchanges.push({ first: index, last: index, cost: 0, importance: 0, pinned: false });
    }
    const exchange = exchanges.at(-1) as Exchange;
    exchange.last = index;
    exchange.cost += cost(index);
    exchange.importance = Math.max(exchange.importance, entry.importance);
    exchange.pinned ||= entry.pinned;
  });
  return exchanges;
}
