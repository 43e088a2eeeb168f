import type { Clock } from '../../core/clock.ts';
import { LruMap } from '../../core/lru-map.ts';
import type { ScopeSettings } from '../../core/settings.ts';
import type { Database } from '../../db/database.ts';
import { retryTransient } from '../../db/retry-transient.ts';
import {
  addUsage,
  dailySpend,
  memberDailySpend,
  utcDay,
  type Spend,
} from '../../db/usage-repository.ts';

/** How long another process's spending may go unseen here. */
export const DAILY_BUDGET_REFRESH_MS = 60_000;

/**
 * How long a turn's usage waits for a database that went away: spent tokens outlive an outage
 * of a few minutes instead of going uncounted.
 */
export const USAGE_RETRY_MS = 5 * 60_000;

/** Scopes whose tally and budget knowledge are kept by default; the least recent is forgotten. */
export const DAILY_BUDGET_SCOPES = 10_000;
/** Members per scope whose tally is kept; the least recent is read again when needed. */
export const DAILY_BUDGET_MEMBERS_PER_SCOPE = 1_000;

const DAY_MS = 86_400_000;

interface Tally extends Spend {
  day: string;
  loadedAt: number;
}

/** A scope's daily limits: tokens (input + output) and nano-dollars, for it and per member. */
export interface DailyLimits {
  tokens?: number | undefined;
  cost?: number | undefined;
  memberTokens?: number | undefined;
  memberCost?: number | undefined;
}

/** The daily limits a scope's settings set. */
export function dailyLimitsOf(settings: ScopeSettings): DailyLimits {
  return {
    tokens: settings.dailyTokenBudget,
    cost: settings.dailyCostBudget,
    memberTokens: settings.memberDailyTokenBudget,
    memberCost: settings.memberDailyCostBudget,
  };
}

/** Why a turn is refused: whose budget is spent, what was spent today, when it resets. */
export interface BudgetExhausted {
  who: 'server' | 'member';
  spent: Spend;
  /** The next 00:00 UTC. */
  resetsAt: Date;
}

/** A model call's usage as the budget counts it. */
export interface SpentUsage {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens?: number | undefined;
  /** Nano-dollars at the model's price; 0 for a model without one. */
  cost?: number | undefined;
  /** The member whose message it answered; '' (the default) for work nobody asked for. */
  memberId?: string | undefined;
  model?: string | undefined;
  /** 1 for a turn (the default), 0 for a call inside one. */
  turns?: number | undefined;
  /** Speech: seconds of voice messages heard, characters of a reply spoken. */
  speechSeconds?: number | undefined;
  speechCharacters?: number | undefined;
  /** The character who spoke the turn, if one did (`/usage` by character). */
  characterId?: string | undefined;
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
  /**
   * Scopes remembered (default DAILY_BUDGET_SCOPES). A forgotten scope costs one database read
   * at its next check, and one announcement at its next spending, as after a restart.
   */
  maxScopes?: number;
}

/**
 * A scope's optional daily budgets, in tokens and in money, for the whole scope and per
 * member (per UTC day). Usage is added in the database after every model call (atomic across
 * processes: the one count every process reads, each call added once by the process that ran
 * it) and mirrored in memory, so checking a budget reads the database at most once a minute
 * per scope and member — or at once after another process announced spending there (`forget`).
 */
export class DailyBudget {
  private readonly tallies: LruMap<string, Tally>;
  /** Per scope, its members' tallies: `forget` drops a scope's in one step. */
  private readonly memberTallies: LruMap<string, LruMap<string, Tally>>;
  /** Whether the scope had a budget when it was last checked here. */
  private readonly hasBudget: LruMap<string, boolean>;
  private readonly options: DailyBudgetOptions;

  constructor(options: DailyBudgetOptions) {
    this.options = options;
    const maxScopes = options.maxScopes ?? DAILY_BUDGET_SCOPES;
    this.tallies = new LruMap(maxScopes);
    this.memberTallies = new LruMap(maxScopes);
    this.hasBudget = new LruMap(maxScopes);
  }

  /** Another process spent in the scope: the next check reads the database. */
  forget(scopeId: string): void {
    this.tallies.delete(scopeId);
    this.memberTallies.delete(scopeId);
  }

  /** True when a budget of the scope (or of the member) is spent for today. */
  async exhausted(scopeId: string, limits: DailyLimits, memberId?: string): Promise<boolean> {
    return (await this.refusal(scopeId, limits, memberId)) !== undefined;
  }

  /** The budget that is spent for today, if one is: the server's first, then the member's. */
  async refusal(
    scopeId: string,
    limits: DailyLimits,
    memberId?: string,
  ): Promise<BudgetExhausted | undefined> {
    const scopeLimited = isLimit(limits.tokens) || isLimit(limits.cost);
    const memberLimited =
      memberId !== undefined && (isLimit(limits.memberTokens) || isLimit(limits.memberCost));
    this.hasBudget.set(
      scopeId,
      scopeLimited || isLimit(limits.memberTokens) || isLimit(limits.memberCost),
    );
    const resetsAt = new Date((Math.floor(this.options.clock.now() / DAY_MS) + 1) * DAY_MS);
    if (scopeLimited) {
      const spent = await this.spentByScope(scopeId);
      if (reached(spent, limits.tokens, limits.cost)) return { who: 'server', spent, resetsAt };
    }
    if (memberLimited) {
      const spent = await this.spentByMember(scopeId, memberId);
      if (reached(spent, limits.memberTokens, limits.memberCost)) {
        return { who: 'member', spent, resetsAt };
      }
    }
    return undefined;
  }

  /** What the scope spent today (the cached tally when fresh). */
  async spentByScope(scopeId: string): Promise<Spend> {
    return this.tallied(this.tallies, scopeId, (at) => dailySpend(this.options.db, scopeId, at));
  }

  /** What a member's turns in the scope spent today (the cached tally when fresh). */
  async spentByMember(scopeId: string, memberId: string): Promise<Spend> {
    let members = this.memberTallies.get(scopeId);
    if (members === undefined) {
      members = new LruMap(DAILY_BUDGET_MEMBERS_PER_SCOPE);
      this.memberTallies.set(scopeId, members);
    }
    return this.tallied(members, memberId, (at) =>
      memberDailySpend(this.options.db, { scopeId, memberId }, at),
    );
  }

  async record(scopeId: string, usage: SpentUsage): Promise<void> {
    const tokens = usage.inputTokens + usage.outputTokens;
    const cost = usage.cost ?? 0;
    const speech = (usage.speechSeconds ?? 0) + (usage.speechCharacters ?? 0);
    if (tokens <= 0 && cost <= 0 && speech <= 0) return;
    const now = new Date(this.options.clock.now());
    const memberId = usage.memberId ?? '';
    const entry = {
      scopeId,
      memberId,
      model: usage.model ?? '',
      at: now,
      inputTokens: usage.inputTokens,
      cachedInputTokens: usage.cachedInputTokens ?? 0,
      outputTokens: usage.outputTokens,
      cost,
      turns: usage.turns ?? 1,
      speechSeconds: usage.speechSeconds ?? 0,
      speechCharacters: usage.speechCharacters ?? 0,
      characterId: usage.characterId,
    };
    // Retried through an outage: a write that committed but whose answer was lost counts
    // twice, which errs on the side of the budget; losing the tokens would not.
    await retryTransient(() => addUsage(this.options.db, entry), {
      clock: this.options.clock,
      maxElapsedMs: USAGE_RETRY_MS,
      signal: this.options.signal,
    });
    const day = utcDay(now);
    for (const tally of [
      this.tallies.get(scopeId),
      this.memberTallies.get(scopeId)?.get(memberId),
    ]) {
      if (tally?.day !== day) continue;
      tally.tokens += tokens;
      tally.cost += cost;
    }
    // A scope never checked here may have a budget another process checks: announce it.
    if (this.hasBudget.get(scopeId) !== false) this.options.announce?.(scopeId);
  }

  private async tallied(
    tallies: Pick<LruMap<string, Tally>, 'get' | 'set'>,
    key: string,
    load: (at: Date) => Promise<Spend>,
  ): Promise<Spend> {
    const now = this.options.clock.now();
    const day = utcDay(new Date(now));
    const tally = tallies.get(key);
    if (tally?.day === day && now - tally.loadedAt < DAILY_BUDGET_REFRESH_MS) {
      return { tokens: tally.tokens, cost: tally.cost };
    }
    const spent = await load(new Date(now));
    tallies.set(key, { day, ...spent, loadedAt: now });
    return spent;
  }
}

function isLimit(limit: number | undefined): limit is number {
  return limit !== undefined && limit > 0;
}

function reached(spent: Spend, tokens: number | undefined, cost: number | undefined): boolean {
  return (isLimit(tokens) && spent.tokens >= tokens) || (isLimit(cost) && spent.cost >= cost);
}
