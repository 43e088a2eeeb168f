import type { Clock } from '../core/clock.ts';
import type { Database } from '../db/database.ts';
import { retryTransient } from '../db/retry-transient.ts';
import { addDailyUsage, dailyUsage, utcDay } from '../db/usage-repository.ts';

/** How long another process's spending may go unseen here. */
export const DAILY_BUDGET_REFRESH_MS = 60_000;

/** How long a turn's usage waits for a database that went away (issue 16.2). */
export const USAGE_RETRY_MS = 5 * 60_000;

interface Tally {
  day: string;
  used: number;
  loadedAt: number;
}

/**
 * A scope's optional daily token budget (input + output tokens per UTC day). Usage is added in
 * the database after every turn (atomic across processes) and mirrored in memory, so checking
 * the budget reads the database at most once a minute per scope.
 */
export class DailyBudget {
  private readonly tallies = new Map<string, Tally>();
  private readonly options: { db: Database; clock: Clock; signal?: AbortSignal };

  /** `signal` ends the waiting for an unreachable database (shutdown). */
  constructor(options: { db: Database; clock: Clock; signal?: AbortSignal }) {
    this.options = options;
  }

  /** True when the scope has a budget and today's usage has reached it. */
  async exhausted(scopeId: string, budget: number | undefined): Promise<boolean> {
    if (budget === undefined || budget <= 0) return false;
    return (await this.used(scopeId)) >= budget;
  }

  async record(
    scopeId: string,
    usage: { inputTokens: number; outputTokens: number },
  ): Promise<void> {
    if (usage.inputTokens + usage.outputTokens <= 0) return;
    const now = new Date(this.options.clock.now());
    // Retried through an outage: a write that committed but whose answer was lost counts
    // twice, which errs on the side of the budget; losing the tokens would not.
    await retryTransient(() => addDailyUsage(this.options.db, { scopeId, at: now, ...usage }), {
      clock: this.options.clock,
      maxElapsedMs: USAGE_RETRY_MS,
      ...(this.options.signal === undefined ? {} : { signal: this.options.signal }),
    });
    const tally = this.tallies.get(scopeId);
    if (tally?.day === utcDay(now)) tally.used += usage.inputTokens + usage.outputTokens;
  }

  private async used(scopeId: string): Promise<number> {
    const now = this.options.clock.now();
    const day = utcDay(new Date(now));
    const tally = this.tallies.get(scopeId);
    if (tally?.day === day && now - tally.loadedAt < DAILY_BUDGET_REFRESH_MS) return tally.used;
    const used = await dailyUsage(this.options.db, scopeId, new Date(now));
    this.tallies.set(scopeId, { day, used, loadedAt: now });
    return used;
  }
}
