import type { Clock } from '../../core/clock.ts';
import type { ScopeSettings } from '../../core/settings.ts';
import type { DailyBudget } from '../limits/daily-budget.ts';
import type { MemberRateLimiter } from '../limits/member-rate-limiter.ts';
import { scopeOf } from './message-intake.ts';
import type { DatabaseStep } from './outage-hold.ts';
import type { Trigger } from './trigger.ts';

/** What became of a Retry press: it runs, or why it cannot (told to the presser alone). */
export type RetryAdmission =
  | { kind: 'started' }
  | { kind: 'rate_limited'; seconds: number }
  | { kind: 'budget' }
  | { kind: 'busy' };

export interface RetryAdmissionOptions {
  rateLimiter: MemberRateLimiter;
  dailyBudget: DailyBudget;
  databaseStep: DatabaseStep;
  clock: Clock;
  /** Hands the trigger to its channel's queue; false when the queue refuses it. */
  submit(trigger: Trigger): boolean;
}

/**
 * A Retry press counts against the member's rate and the scope's daily budget like the message
 * did, and waits its turn in the channel's queue.
 */
export async function admitRetry(
  trigger: Trigger,
  settings: ScopeSettings,
  options: RetryAdmissionOptions,
): Promise<RetryAdmission> {
  const { databaseStep, rateLimiter, dailyBudget } = options;
  const scopeId = scopeOf(trigger.message).id;
  const now = options.clock.now();
  const verdict = await databaseStep(() =>
    rateLimiter.take({
      // Only the process that claimed the press gets here: a key of its own is enough.
      key: `retry:${trigger.message.id}:${now}`,
      scopeId,
      memberId: trigger.message.authorId,
      perMinute: settings.memberTurnsPerMinute,
      now,
    }),
  );
  if (!verdict.allowed) {
    return { kind: 'rate_limited', seconds: Math.ceil(verdict.retryAfterMs / 1000) };
  }
  const budget = settings.dailyTokenBudget;
  if (await databaseStep(() => dailyBudget.exhausted(scopeId, budget))) return { kind: 'budget' };
  return options.submit(trigger) ? { kind: 'started' } : { kind: 'busy' };
}
