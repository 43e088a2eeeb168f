import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { DeliveryError } from '../../src/core/errors.ts';
import { silentLogger } from '../../src/core/logger.ts';
import type { ToolContext, ToolResult } from '../../src/core/tool.ts';
import { claimDueReminders, findReminder } from '../../src/db/reminder-repository.ts';
import { createSetReminderTool } from '../../src/tools/builtin/set-reminder-tool.ts';
import {
  ReminderScheduler,
  type Reminder,
  type ReminderDelivery,
  type ReminderDeliveryOptions,
} from '../../src/tools/reminders/reminder-scheduler.ts';
import { ToolRegistry } from '../../src/tools/tool-registry.ts';
import { testBackends, type TestDatabase } from '../support/test-database.ts';
import { ManualClock } from '../../src/stream/testing/manual-clock.ts';
import { eventually } from './support/eventually.ts';
import { containing } from './support/matchers.ts';

const GUILD = '110000000000000001';
const ALICE = '210000000000000001';
const MINUTE = 60_000;

const CONTEXT: ToolContext = {
  scopeId: GUILD,
  guildId: GUILD,
  channelId: '310000000000000001',
  userId: ALICE,
  messageId: '410000000000000001',
  turnId: '00000000-0000-4000-8000-000000000001',
  memberPermissions: '0',
  locale: 'en-US',
  timeZone: 'Europe/Paris',
};

class RecordingDelivery implements ReminderDelivery {
  readonly delivered: Reminder[] = [];
  failWith: Error | undefined;

  async deliver(reminder: Reminder): Promise<void> {
    await Promise.resolve();
    if (this.failWith !== undefined) throw this.failWith;
    this.delivered.push(reminder);
  }
}

/**
 * A delivery that keeps the contract (confirm the claim, then send) but can be made to stall
 * before it, ignoring its abort signal: a process paused or stuck in a slow channel fetch.
 */
class StallingDelivery implements ReminderDelivery {
  readonly sent: string[];
  stall = false;
  readonly stalled: Array<() => void> = [];
  readonly settled: Array<Promise<unknown>> = [];

  constructor(sent: string[]) {
    this.sent = sent;
  }

  deliver(reminder: Reminder, options?: ReminderDeliveryOptions): Promise<void> {
    const stall = this.stall;
    const delivering = (async () => {
      if (stall) await new Promise<void>((resolve) => this.stalled.push(resolve));
      await options?.claim?.confirm?.();
      this.sent.push(reminder.id);
    })();
    this.settled.push(delivering.catch(() => undefined));
    return delivering;
  }

  resume(): void {
    for (const resume of this.stalled.splice(0)) resume();
  }
}

describe.each(testBackends())('reminders on $name', (backend) => {
  let database: TestDatabase;
  let clock: ManualClock;
  let registry: ToolRegistry;
  const created: Date[] = [];

  async function setReminder(input: unknown, context = CONTEXT): Promise<ToolResult> {
    return registry.execute(
      { id: 'call', name: 'set_reminder', input },
      context,
      new AbortController().signal,
    );
  }

  function scheduler(delivery: ReminderDelivery, batchSize = 20): ReminderScheduler {
    return new ReminderScheduler({
      db: database.db,
      clock,
      databaseTime: () => Promise.resolve(new Date(clock.now())),
      delivery,
      logger: silentLogger,
      // A long poll: the loop then sleeps exactly until the next due reminder.
      options: { batchSize, pollIntervalMs: 60 * MINUTE },
    });
  }

  beforeAll(async () => {
    database = await backend.open();
    await database.migrate();
  });

  beforeEach(async () => {
    await database.rawQuery(sql`delete from reminders`);
    // 2026-01-15 12:00 UTC = 13:00 in Paris
    clock = new ManualClock(Date.UTC(2026, 0, 15, 12, 0, 0));
    created.length = 0;
    registry = new ToolRegistry({ clock, logger: silentLogger }).register(
      createSetReminderTool({
        db: database.db,
        clock,
        limits: { pendingPerMember: 3 },
        onReminderCreated: (dueAt) => created.push(dueAt),
      }),
    );
  });
  afterAll(() => database.dispose());

  it('stores a reminder for the author, in this channel, at the time asked', async () => {
    const inTen = await setReminder({ message: 'stretch', inMinutes: 10 });
    expect(inTen).toEqual({
      ok: true,
      output:
        'Reminder set for Thursday, January 15, 2026 at 13:10 Europe/Paris (2026-01-15T13:10:00+01:00), in 10 minutes. It will be posted in this channel.',
    });
    await setReminder({ message: 'call mum', at: '2026-07-01T09:30' });
    await setReminder({ message: 'standup', at: '2026-01-16T08:00:00Z' });
    const rows = await database.rawQuery(
      sql`select user_id, channel_id, message_id, content, due_at, status from reminders order by due_at`,
    );
    expect(rows.map((row) => [row.content, new Date(String(row.due_at)).toISOString()])).toEqual([
      ['stretch', '2026-01-15T12:10:00.000Z'],
      ['standup', '2026-01-16T08:00:00.000Z'],
      // 09:30 in Paris in summer is 07:30 UTC (daylight saving time)
      ['call mum', '2026-07-01T07:30:00.000Z'],
    ]);
    expect(rows.every((row) => row.user_id === ALICE && row.status === 'pending')).toBe(true);
    expect(rows[0]).toMatchObject({ channel_id: CONTEXT.channelId, message_id: CONTEXT.messageId });
    expect(created).toHaveLength(3);
  });

  it('refuses a past time, a time too far ahead, ambiguous input and a full list, clearly', async () => {
    expect(await setReminder({ message: 'x', at: '2026-01-15T12:59' })).toEqual({
      ok: false,
      error: 'That time has already passed: it is now 2026-01-15T13:00:00+01:00 in Europe/Paris.',
    });
    expect(await setReminder({ message: 'x', at: '2028-01-01T00:00' })).toMatchObject({
      ok: false,
      error: 'Reminders can be set at most 365 days ahead.',
    });
    expect(await setReminder({ message: 'x', inMinutes: 5, at: '2026-02-01T10:00' })).toMatchObject(
      { ok: false, error: containing('exactly one of inMinutes or at') },
    );
    for (const minutes of [1, 2, 3]) await setReminder({ message: 'x', inMinutes: minutes });
    expect(await setReminder({ message: 'x', inMinutes: 4 })).toEqual({
      ok: false,
      error:
        'Not set: the person you are answering already has 3 pending reminders, the most allowed.',
    });
  });

  it('delivers a reminder when it comes due, also after a restart of the scheduler', async () => {
    await setReminder({ message: 'tea is ready', inMinutes: 10 });
    const delivery = new RecordingDelivery();
    const firstRun = new AbortController();
    const first = scheduler(delivery).run(firstRun.signal);
    await eventually(() => clock.pendingSleeps().length === 1);
    firstRun.abort(); // the process stops before the reminder is due
    await first;

    const secondRun = new AbortController();
    const second = scheduler(delivery).run(secondRun.signal);
    await eventually(() => clock.pendingSleeps().length === 1);
    await clock.advance(9 * MINUTE);
    expect(clock.pendingSleeps()).toHaveLength(1);
    expect(delivery.delivered).toEqual([]);
    await clock.advance(MINUTE);
    await eventually(() => delivery.delivered.length === 1);
    expect(delivery.delivered[0]).toMatchObject({ content: 'tea is ready', userId: ALICE });
    const id = delivery.delivered[0]!.id;
    await eventually(async () => (await findReminder(database.db, id))?.status === 'delivered');
    secondRun.abort();
    await second;
  });

  it('wakes early when a reminder is created that is due before the next poll', async () => {
    const delivery = new RecordingDelivery();
    const run = new AbortController();
    const instance = scheduler(delivery);
    const running = instance.run(run.signal);
    await eventually(() => clock.pendingSleeps().length === 1); // nothing due: sleeping a full hour
    await setReminder({ message: 'soon', inMinutes: 1 });
    instance.wake();
    await eventually(() => clock.pendingSleeps().length === 0);
    await eventually(() => clock.pendingSleeps().length === 1);
    await clock.advance(MINUTE);
    await eventually(() => delivery.delivered.length === 1);
    run.abort();
    await running;
  });

  it('never delivers a reminder twice when two processes claim at the same time', async () => {
    for (let index = 0; index < 40; index += 1) {
      await setReminder(
        { message: `reminder ${index}`, inMinutes: 1 },
        { ...CONTEXT, userId: `2200000000000000${String(index).padStart(2, '0')}` },
      );
    }
    await clock.advance(MINUTE);
    const first = new RecordingDelivery();
    const second = new RecordingDelivery();
    const [processA, processB] = [scheduler(first, 5), scheduler(second, 5)];
    const signal = new AbortController().signal;
    for (;;) {
      const claimed = await Promise.all([processA.deliverDue(signal), processB.deliverDue(signal)]);
      if (claimed[0] + claimed[1] === 0) break;
    }
    const ids = [...first.delivered, ...second.delivered].map((reminder) => reminder.id);
    expect(ids).toHaveLength(40);
    expect(new Set(ids).size).toBe(40);
    const statuses = await database.rawQuery(
      sql`select status, count(*)::int as count from reminders group by status`,
    );
    expect(statuses).toEqual([{ status: 'delivered', count: 40 }]);
  });

  it('claims no more reminders than the batch asks for', async () => {
    for (let index = 0; index < 10; index += 1) {
      await setReminder(
        { message: `batch ${index}`, inMinutes: 1 },
        { ...CONTEXT, userId: `2500000000000000${String(index).padStart(2, '0')}` },
      );
    }
    const now = new Date(clock.now() + MINUTE);
    const claim = () =>
      claimDueReminders(database.db, {
        now,
        claimToken: randomUUID(),
        staleClaimBefore: new Date(now.getTime() - 5 * MINUTE),
        limit: 3,
      });
    expect((await claim()).length).toBe(3);
    expect((await claim()).length).toBe(3);
  });

  it('hands concurrent claims disjoint sets of reminders', async () => {
    for (let index = 0; index < 30; index += 1) {
      await setReminder(
        { message: `r${index}`, inMinutes: 1 },
        { ...CONTEXT, userId: `2300000000000000${String(index).padStart(2, '0')}` },
      );
    }
    const now = new Date(clock.now() + MINUTE);
    const claims = await Promise.all(
      Array.from({ length: 4 }, () =>
        claimDueReminders(database.db, {
          now,
          claimToken: randomUUID(),
          staleClaimBefore: new Date(now.getTime() - 5 * MINUTE),
          limit: 10,
        }),
      ),
    );
    const ids = claims.flat().map((reminder) => reminder.id);
    expect(ids).toHaveLength(30);
    expect(new Set(ids).size).toBe(30);
  });

  it('delivers each reminder once while four processes race, two of them stalled past the claim timeout', async () => {
    for (let index = 0; index < 40; index += 1) {
      await setReminder(
        { message: `race ${index}`, inMinutes: 1 },
        { ...CONTEXT, userId: `2400000000000000${String(index).padStart(2, '0')}` },
      );
    }
    const sent: string[] = [];
    // Each process has its own clock: a stalled process's time does not move on.
    const processes = Array.from({ length: 4 }, () => {
      const own = new ManualClock(clock.now() + MINUTE);
      const delivery = new StallingDelivery(sent);
      const instance = new ReminderScheduler({
        db: database.db,
        clock: own,
        databaseTime: () => Promise.resolve(new Date(own.now())),
        delivery,
        logger: silentLogger,
        options: { batchSize: 7, claimTimeoutMs: 5 * MINUTE, deliveryTimeoutMs: 30_000 },
      });
      return { clock: own, delivery, instance };
    });
    const signal = new AbortController().signal;
    const [stuckA, stuckB, ...healthy] = processes;
    stuckA!.delivery.stall = true;
    stuckB!.delivery.stall = true;
    // The stalled ones claim a batch each and hang in their first delivery.
    const stalledPasses = [stuckA!, stuckB!].map((stuck) => stuck.instance.deliverDue(signal));
    await eventually(() => stuckA!.delivery.stalled.length + stuckB!.delivery.stalled.length === 2);
    const drain = async () => {
      for (;;) {
        const claimed = await Promise.all(healthy.map((live) => live.instance.deliverDue(signal)));
        if (claimed.every((count) => count === 0)) return;
      }
    };
    await drain();
    expect(sent).toHaveLength(40 - 14);
    // The healthy processes live on past the claim timeout and take the stalled claims over.
    for (const live of healthy) await live.clock.advance(5 * MINUTE + 1);
    await drain();
    expect(sent).toHaveLength(40);
    // The stalled processes wake up and go through the rest of their batch: nothing more is sent.
    stuckA!.delivery.stall = false;
    stuckB!.delivery.stall = false;
    stuckA!.delivery.resume();
    stuckB!.delivery.resume();
    await Promise.all(stalledPasses);
    await Promise.all(processes.flatMap((each) => each.delivery.settled));
    expect(sent).toHaveLength(40);
    expect(new Set(sent).size).toBe(40);
    const statuses = await database.rawQuery(
      sql`select status, count(*)::int as count from reminders group by status`,
    );
    expect(statuses).toEqual([{ status: 'delivered', count: 40 }]);
  });

  it('aborts a delivery at its timeout and moves on even when it ignores the abort', async () => {
    await setReminder({ message: 'slow', inMinutes: 1 });
    await clock.advance(MINUTE);
    const sent: string[] = [];
    const delivery = new StallingDelivery(sent);
    delivery.stall = true;
    let aborted: AbortSignal | undefined;
    const watching: ReminderDelivery = {
      deliver(reminder, options) {
        aborted = options.signal;
        return delivery.deliver(reminder, options);
      },
    };
    const instance = new ReminderScheduler({
      db: database.db,
      clock,
      databaseTime: () => Promise.resolve(new Date(clock.now())),
      delivery: watching,
      logger: silentLogger,
      options: { deliveryTimeoutMs: 30_000, retryDelayMs: MINUTE },
    });
    const pass = instance.deliverDue(new AbortController().signal);
    await eventually(() => delivery.stalled.length === 1);
    expect(aborted?.aborted).toBe(false);
    await clock.advance(30_000);
    expect(await pass).toBe(1);
    expect(aborted?.aborted).toBe(true);
    const [row] = await database.rawQuery(sql`select status from reminders where content = 'slow'`);
    expect(row).toEqual({ status: 'pending' }); // released for a retry
    delivery.resume(); // it wakes up late: its claim is void, it sends nothing
    await Promise.all(delivery.settled);
    expect(sent).toEqual([]);
    delivery.stall = false;
    await clock.advance(MINUTE);
    expect(await instance.deliverDue(new AbortController().signal)).toBe(1);
    expect(sent).toHaveLength(1);
  });

  it('refuses a delivery timeout longer than half the claim timeout', () => {
    expect(
      () =>
        new ReminderScheduler({
          db: database.db,
          clock,
          databaseTime: () => Promise.resolve(new Date(clock.now())),
          delivery: new RecordingDelivery(),
          logger: silentLogger,
          options: { deliveryTimeoutMs: 3 * MINUTE, claimTimeoutMs: 5 * MINUTE },
        }),
    ).toThrow(/at most half/);
  });

  it('takes over a reminder claimed by a process that died, once the claim expires', async () => {
    await setReminder({ message: 'orphan', inMinutes: 1 });
    await clock.advance(MINUTE);
    const dead = await claimDueReminders(database.db, {
      now: new Date(clock.now()),
      claimToken: randomUUID(),
      staleClaimBefore: new Date(clock.now() - 5 * MINUTE),
      limit: 10,
    });
    expect(dead).toHaveLength(1);
    const delivery = new RecordingDelivery();
    const survivor = scheduler(delivery);
    const signal = new AbortController().signal;
    expect(await survivor.deliverDue(signal)).toBe(0);
    await clock.advance(5 * MINUTE);
    expect(await survivor.deliverDue(signal)).toBe(1);
    expect(delivery.delivered.map((reminder) => reminder.content)).toEqual(['orphan']);
  });

  it("never takes over a live peer's claim from a host whose clock runs ahead", async () => {
    await setReminder({ message: 'claimed by a peer', inMinutes: 1 });
    await clock.advance(MINUTE);
    const peer = await claimDueReminders(database.db, {
      now: new Date(clock.now()),
      claimToken: randomUUID(),
      staleClaimBefore: new Date(clock.now() - 5 * MINUTE),
      limit: 10,
    });
    expect(peer).toHaveLength(1);
    // This host's clock is ten minutes ahead; the database's clock (shared) is not.
    const delivery = new RecordingDelivery();
    const ahead = new ReminderScheduler({
      db: database.db,
      clock: new ManualClock(clock.now() + 10 * MINUTE),
      databaseTime: () => Promise.resolve(new Date(clock.now())),
      delivery,
      logger: silentLogger,
    });
    expect(await ahead.deliverDue(new AbortController().signal)).toBe(0);
    expect(delivery.delivered).toEqual([]);
  });

  it('retries a failed delivery later and gives up at once on a permanent failure', async () => {
    await setReminder({ message: 'flaky', inMinutes: 1 });
    await clock.advance(MINUTE);
    const delivery = new RecordingDelivery();
    const instance = scheduler(delivery);
    const signal = new AbortController().signal;
    delivery.failWith = new Error('503 from Discord');
    expect(await instance.deliverDue(signal)).toBe(1);
    delivery.failWith = undefined;
    expect(await instance.deliverDue(signal)).toBe(0); // not before the retry delay
    await clock.advance(MINUTE);
    expect(await instance.deliverDue(signal)).toBe(1);
    expect(delivery.delivered.map((reminder) => reminder.attempts)).toEqual([2]);

    await setReminder({ message: 'channel gone', inMinutes: 1 });
    await clock.advance(MINUTE);
    delivery.failWith = new DeliveryError('unknown_channel', 'channel deleted');
    expect(await instance.deliverDue(signal)).toBe(1);
    const rows = await database.rawQuery(
      sql`select status, last_error from reminders where content = 'channel gone'`,
    );
    expect(rows).toEqual([{ status: 'failed', last_error: 'channel deleted' }]);
  });
});
