import { randomUUID } from 'node:crypto';
import { abortError, type Clock } from '../../core/clock.ts';
import { BotError, DeliveryError, isAbortError } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';
import { noMetrics, type BotMetrics } from '../../core/metrics.ts';
import type { Database } from '../../db/database.ts';
import {
  claimDueReminders,
  markReminderDelivered,
  nextReminderDueAt,
  releaseReminder,
  renewReminderClaim,
  type Reminder,
  type ReminderShards,
} from '../../db/reminder-repository.ts';

export type { Reminder } from '../../db/reminder-repository.ts';

/** This process no longer holds the reminder's claim: another one took it over. Not sent. */
export class ReminderClaimLostError extends BotError {
  constructor(reminderId: string) {
    super('reminder_claim_lost', `the claim on reminder ${reminderId} was taken over`);
  }
}

export interface ReminderDeliveryOptions {
  /** Aborts at the delivery timeout and at shutdown: stop, and send nothing after it. */
  signal: AbortSignal;
  claim: {
    /**
     * Call right before the send that cannot be taken back: renews the claim when this process
     * still holds it, else throws ReminderClaimLostError (and nothing must be sent).
     */
    confirm(): Promise<void>;
  };
}

/** Posts a due reminder (the bot implements it: a message in the channel mentioning only the user). */
export interface ReminderDelivery {
  deliver(reminder: Reminder, options: ReminderDeliveryOptions): Promise<void>;
}

export interface ReminderSchedulerOptions {
  /** The longest the scheduler sleeps before looking again (other processes add reminders too). */
  pollIntervalMs: number;
  /** Reminders claimed per pass. */
  batchSize: number;
  /** A delivery taking longer is abandoned (and retried). At most half the claim timeout. */
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
 * process may run a scheduler, and the atomic claim makes one of them deliver each reminder. A
 * process that dies mid-delivery leaves a claim that expires and is taken over.
 *
 * At most once, by fencing: a delivery confirms its claim (a write that succeeds only with this
 * claim's token, and renews it) right before it sends, and is abandoned at `deliveryTimeoutMs`
 * (its signal aborts; the scheduler stops waiting even if it does not). So a slow or stalled
 * process whose claim was taken over sends nothing, and a takeover can only start a full claim
 * timeout after the last confirm — well after that send was aborted. What remains: a send
 * Discord carried out whose answer never came back within the timeout is retried.
 */
export class ReminderScheduler {
  readonly #db: Database;
  readonly #clock: Clock;
  readonly #databaseTime: () => Promise<Date>;
  readonly #delivery: ReminderDelivery;
  readonly #logger: Logger;
  readonly #options: ReminderSchedulerOptions;
  readonly #metrics: BotMetrics;
  #wake = new AbortController();
  readonly #shards: ReminderShards | undefined;

  constructor(options: {
    db: Database;
    /** This host's clock: sleeps and the delivery timeout. */
    clock: Clock;
    /**
     * The database's clock (`databaseTime`): when a reminder is due and how old a claim is.
     * Hosts' clocks may disagree by minutes; one ahead would take over a live peer's claim.
     */
    databaseTime: () => Promise<Date>;
    delivery: ReminderDelivery;
    logger: Logger;
    metrics?: BotMetrics | undefined;
    options?: Partial<ReminderSchedulerOptions>;
    /** A sharded process delivers only the reminders of its shards. */
    shards?: ReminderShards | undefined;
  }) {
    this.#shards = options.shards;
    this.#metrics = options.metrics ?? noMetrics;
    this.#db = options.db;
    this.#clock = options.clock;
    this.#databaseTime = options.databaseTime;
    this.#delivery = options.delivery;
    this.#logger = options.logger;
    this.#options = { ...REMINDER_SCHEDULER_DEFAULTS, ...options.options };
    if (this.#options.deliveryTimeoutMs * 2 > this.#options.claimTimeoutMs) {
      throw new BotError(
        'reminder_options',
        'deliveryTimeoutMs must be at most half of claimTimeoutMs (a takeover must never meet a live send)',
      );
    }
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
    const now = (await this.#databaseTime()).getTime();
    const claimToken = randomUUID();
    const claimed = await claimDueReminders(this.#db, {
      shards: this.#shards,
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
      () => timeout.abort(new BotError('reminder_timeout', 'the reminder delivery timed out')),
      () => undefined,
    );
    const deliverySignal = AbortSignal.any([signal, timeout.signal]);
    const claim = {
      confirm: async (): Promise<void> => {
        const held = await renewReminderClaim(this.#db, {
          id: reminder.id,
          claimToken,
          now: await this.#databaseTime(),
        });
        if (!held) throw new ReminderClaimLostError(reminder.id);
      },
    };
    try {
      await untilAborted(
        this.#delivery.deliver(reminder, { signal: deliverySignal, claim }),
        deliverySignal,
      );
      const settled = await markReminderDelivered(this.#db, {
        id: reminder.id,
        claimToken,
        now: await this.#databaseTime(),
      });
      this.#metrics.reminder('delivered');
      this.#logger.debug({ reminder: reminder.id }, 'reminder delivered');
      if (!settled) {
        this.#logger.warn(
          { reminder: reminder.id },
          'reminder claim was taken over during delivery',
        );
      }
    } catch (error) {
      if (error instanceof ReminderClaimLostError) {
        this.#logger.info(
          { reminder: reminder.id },
          'reminder taken over by another process: not sent here',
        );
        return;
      }
      if (signal.aborted && (isAbortError(error) || error === signal.reason)) return; // shutting down: the claim expires
      const permanent = error instanceof DeliveryError && !error.retryable;
      const giveUp = permanent || reminder.attempts >= this.#options.maxAttempts;
      const retryAt = giveUp
        ? undefined
        : new Date(
            (await this.#databaseTime()).getTime() + this.#options.retryDelayMs * reminder.attempts,
          );
      this.#logger.warn(
        { err: error, reminder: reminder.id, attempts: reminder.attempts, giveUp },
        'reminder delivery failed',
      );
      // Releasing voids the claim token: a delivery that ignored its abort can no longer confirm.
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
    const next = await nextReminderDueAt(this.#db, this.#shards);
    const untilNext =
      next === undefined
        ? Infinity
        : Math.max(0, next.getTime() - (await this.#databaseTime()).getTime());
    const delay = Math.min(this.#options.pollIntervalMs, untilNext);
    await this.#clock
      .sleep(delay, AbortSignal.any([signal, this.#wake.signal]))
      .catch(() => undefined);
  }
}

/** Settles with `work`, or rejects as soon as `signal` aborts, whether or not `work` listens. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signalError(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signalError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

function signalError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : abortError(signal);
}
