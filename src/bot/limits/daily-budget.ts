import type { Clock } from '../../core/clock.ts';
import type { Database } from '../../db/database.ts';
import { retryTransient } from '../../db/retry-transient.ts';
import { addDailyUsage, dailyUsage, utcDay } from '../../db/usage-repository.ts';

/** How long another process's spending may go unseen here. */
export const DAILY_BUDGET_REFRESH_MS = 60_000;

/**
 * How long a turn's usage waits for a database that went away: spent tokens outlive an outage
 * of a few minutes instead of going uncounted.
 */
export const USAGE_RETRY_MS = 5 * 60_000;

interface Tally {
  day: string;
  used: number;
  loadedAt: number;
}

export interface DailyBudgetOptions {
  db: Database;
  clock: Clock;
  /** Ends the waiting for an unreachable database (shutdown). */
  signal?: AbortSignal;
  /**
   * Tells the other processes that this one added usage to a scope (the control bus). Not
   * called for a scope last checked without a budget: no process caches its tally, and a
   * NOTIFY on every turn would cost PostgreSQL and every process work for nothing.
   */
  announce?(scopeId: string): void;
}

/**
 * A scope's optional daily token budget (input + output tokens per UTC day). Usage is added in
 * the database after every turn (atomic across processes: the one count every process reads,
 * each turn's tokens added once by the process that ran it) and mirrored in memory, so
 * checking the budget reads the database at most once a minute per scope — or at once after
 * another process announced spending there (`forget`).
 */
export class DailyBudget {
  private readonly tallies = new Map<string, Tally>();
  /** Whether the scope had a budget when it was last checked here. */
  private readonly hasBudget = new Map<string, boolean>();
  private readonly options: DailyBudgetOptions;

  constructor(options: DailyBudgetOptions) {
    this.options = options;
  }

  /** Another process spent tokens in the scope: the next check reads the database. */
  forget(scopeId: string): void {
    this.tallies.delete(scopeId);
  }

  /** True when the scope has a budget and today's usage has reached it. */
  async exhausted(scopeId: string, budget: number | undefined): Promise<boolean> {
    const limited = budget !== undefined && budget > 0;
    this.hasBudget.set(scopeId, limited);
    if (!limited) return false;
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
      signal: this.options.signal,
    });
    const tally = this.tallies.get(scopeId);
    if (tally?.day === utcDay(now)) tally.used += usage.inputTokens + usage.outputTokens;
    // A scope never checked here may have a budget another process checks: announce it.
    if (this.hasBudget.get(scopeId) !== false) this.options.announce?.(scopeId);
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
