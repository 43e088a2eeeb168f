import type { Refusal } from '../i18n/member-text.ts';
import type { BudgetExhausted } from '../limits/daily-budget.ts';

/** What a member is told for a spent budget: whose, what was spent, how long until 00:00 UTC. */
export function budgetRefusal(spent: BudgetExhausted, now: number): Refusal {
  return {
    kind: 'budget_exhausted',
    who: spent.who,
    spentTokens: spent.spent.tokens,
    spentCost: spent.spent.cost,
    resetsInMs: spent.resetsAt.getTime() - now,
  };
}
