import { randomUUID } from 'node:crypto';
import type { Clock } from '../../core/clock.ts';
import { DeliveryError, isAbortError } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';
import { noMetrics, type BotMetrics } from '../../core/metrics.ts';
import type { Database } from '../../db/database.ts';
import {
  claimDueReminders,
  markReminderDelivered,
  nextReminderDueAt,
  releaseReminder,
  type Reminder,
} from '../../db/reminder-repository.ts';

export type { Reminder } from '../../db/reminder-repository.ts';

/** Posts a due reminder (the bot implements it: a message in the channel mentioning only the user). */
export interface ReminderDelivery {
  deliver(reminder: Reminder, signal: AbortSignal): Promise<void>;
}

export interface ReminderSchedulerOptions {
  /** The longest the scheduler sleeps before looking again (other processes add reminders too). */
  pollIntervalMs: number;
  /** Reminders claimed per pass. */
  batchSize: number;
  /** A delivery taking longer is abandoned (and retried). */
  deliveryTimeoutMs: number;
  /** A claim older than this was left by a dead process and may be taken over. */
  claimTimeoutMs: number;
  /** Delivery attempts before a reminder is marked failed. */
  maxAttempts: number;
  /** Wait before a retry, multiplied by the attempt number. */
  retryDelayMs: number;
}

export const REMINDER_SCHEDULER_DEFAULTS: ReminderSchedulerOptions = {
  pollIntervalMs: 30_000,
  batchSize: 20,
  deliveryTimeoutMs: 30_000,
  claimTimeoutMs: 5 * 60_000,
  maxAttempts: 5,
  retryDelayMs: 60_000,
};

/**
 * Delivers due reminders. State lives in the database, so reminders survive restarts; every
 * process may run a scheduler, and the atomic claim makes exactly one of them deliver each
 * reminder. A process that dies mid-delivery leaves a claim that expires and is taken over
 * (at-least-once, never twice while the first holder is alive and within its timeout).
 */
export class ReminderScheduler {
  readonly #db: Database;
  readonly #clock: Clock;
  readonly #delivery: ReminderDelivery;
  readonly #logger: Logger;
  readonly #options: ReminderSchedulerOptions;
  readonly #metrics: BotMetrics;
  #wake = new AbortController();

  constructor(options: {
    db: Database;
    clock: Clock;
    delivery: ReminderDelivery;
    logger: Logger;
    metrics?: BotMetrics;
    options?: Partial<ReminderSchedulerOptions>;
  }) {
    this.#metrics = options.metrics ?? noMetrics;
    this.#db = options.db;
    this.#clock = options.clock;
    this.#delivery = options.delivery;
    this.#logger = options.logger;
    this.#options = { ...REMINDER_SCHEDULER_DEFAULTS, ...options.options };
  }

  /** Runs until `signal` aborts. Failures of a pass are logged; the loop carries on. */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        while ((await this.deliverDue(signal)) === this.#options.batchSize) {
          // A full batch: more may be due right now.
        }
        await this.#sleepUntilNext(signal);
      } catch (error) {
        if (signal.aborted) return;
        this.#logger.error({ err: error }, 'reminder pass failed');
        await this.#clock.sleep(this.#options.pollIntervalMs, signal).catch(() => undefined);
      }
    }
  }

  /** Ends the current sleep early: a reminder was just created. */
  wake(): void {
    this.#wake.abort();
  }

  /** One pass: claims up to a batch of due reminders and delivers them. Returns how many it claimed. */
  async deliverDue(signal: AbortSignal): Promise<number> {
    const now = this.#clock.now();
    const claimToken = randomUUID();
    const claimed = await claimDueReminders(this.#db, {
      now: new Date(now),
      claimToken,
      staleClaimBefore: new Date(now - this.#options.claimTimeoutMs),
      limit: this.#options.batchSize,
    });
    this.#metrics.reminder('due', claimed.length);
    for (const reminder of claimed) {
      if (signal.aborted) break; // the claim expires and another pass delivers it
      await this.#deliverOne(reminder, claimToken, signal);
    }
    return claimed.length;
  }

  async #deliverOne(reminder: Reminder, claimToken: string, signal: AbortSignal): Promise<void> {
    const timeout = new AbortController();
    const stopTimer = new AbortController();
    this.#clock.sleep(this.#options.deliveryTimeoutMs, stopTimer.signal).then(
      () => timeout.abort(),
      () => undefined,
    );
    try {
      await this.#delivery.deliver(reminder, AbortSignal.any([signal, timeout.signal]));
      const settled = await markReminderDelivered(this.#db, {
        id: reminder.id,
        claimToken,
        now: new Date(this.#clock.now()),
      });
      this.#metrics.reminder('delivered');
      if (!settled) {
        this.#logger.warn(
          { reminder: reminder.id },
          'reminder claim was taken over during delivery',
        );
      }
    } catch (error) {
      if (signal.aborted && isAbortError(error)) return; // shutting down: the claim expires
      const permanent = error instanceof DeliveryError && !error.retryable;
      const giveUp = permanent || reminder.attempts >= this.#options.maxAttempts;
      const retryAt = giveUp
        ? undefined
        : new Date(this.#clock.now() + this.#options.retryDelayMs * reminder.attempts);
      this.#logger.warn(
        { err: error, reminder: reminder.id, attempts: reminder.attempts, giveUp },
        'reminder delivery failed',
      );
      this.#metrics.reminder(giveUp ? 'failed' : 'retried');
      await releaseReminder(this.#db, {
        id: reminder.id,
        claimToken,
        error: error instanceof Error ? error.message.slice(0, 300) : 'delivery failed',
        retryAt,
      });
    } finally {
      stopTimer.abort();
    }
  }

  async #sleepUntilNext(signal: AbortSignal): Promise<void> {
    // Re-armed before reading: a reminder created after this read still ends the sleep.
    if (this.#wake.signal.aborted) this.#wake = new AbortController();
    const next = await nextReminderDueAt(this.#db);
    const untilNext =
      next === undefined ? Infinity : Math.max(0, next.getTime() - this.#clock.now());
    const delay = Math.min(this.#options.pollIntervalMs, untilNext);
    await this.#clock
      .sleep(delay, AbortSignal.any([signal, this.#wake.signal]))
      .catch(() => undefined);
  }
}
