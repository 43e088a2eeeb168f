/**
 * The control bus on both databases (PGlite in-process, PostgreSQL LISTEN/NOTIFY), and on a
 * PostgreSQL the test restarts: the listening connection comes back by itself, nothing reaches
 * uncaughtException, and subscribers hear that they may have missed messages.
 */
import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CONTROL_BUS_RESUMED, type ControlBus } from '../../src/core/control-bus.ts';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.ts';
import { ManualClock } from '../../src/stream/testing/manual-clock.ts';
import { findPostgresBinaries, startPgCluster, type PgCluster } from '../support/pg-cluster.ts';
import { testBackends, type TestDatabase } from '../support/test-database.ts';
import { eventually } from '../tools/support/eventually.ts';
import { recordingLogger, type LogEntry } from '../tools/support/recording-logger.ts';

/** Collects what a topic's subscriber receives. */
function collect(bus: ControlBus, topic: string): unknown[] {
  const received: unknown[] = [];
  bus.subscribe(topic, (payload) => received.push(payload));
  return received;
}

describe.each(testBackends())('the control bus on $name', (backend) => {
  let database: TestDatabase;
  let bus: ControlBus;

  beforeAll(async () => {
    database = await backend.open();
    bus = await database.controlBus();
  });
  afterAll(() => database.dispose());

  it('delivers a message to the subscribers of its topic only, as sent', async () => {
    const stops = collect(bus, 'stop');
    const settings = collect(bus, 'settings');
    await bus.publish('stop', { channelId: '123', by: 'command' });
    await eventually(() => stops.length === 1);
    expect(stops).toEqual([{ channelId: '123', by: 'command' }]);
    expect(settings).toEqual([]);
    expect(bus.shared).toBe(backend.name === 'postgres');
  });

  it('refuses to send a message PostgreSQL would refuse (8000 bytes), before sending it', async () => {
    const received = collect(bus, 'big');
    await expect(bus.publish('big', { text: 'x'.repeat(8_000) })).rejects.toMatchObject({
      code: 'control_message_too_large',
    });
    await bus.publish('big', { text: 'x'.repeat(7_900) });
    await eventually(() => received.length === 1);
  });

  it('ignores a notification that is not a control message, and isolates a failing listener', async () => {
    const received = collect(bus, 'after');
    bus.subscribe('after', () => {
      throw new Error('listener bug');
    });
    await database.db.execute(sql`select pg_notify('tomodachi_control', 'not json')`);
    await database.db.execute(sql`select pg_notify('tomodachi_control', '{"payload":1}')`);
    await bus.publish('after', 'still delivered');
    await eventually(() => received.length === 1);
    expect(received).toEqual(['still delivered']);
  });
});

const available = findPostgresBinaries();

describe.skipIf('skipped' in available)('the control bus through a PostgreSQL restart', () => {
  let cluster: PgCluster;
  const handles: DatabaseHandle[] = [];
  const uncaught: unknown[] = [];
  const onUncaught = (error: unknown): void => void uncaught.push(error);

  beforeAll(async () => {
    process.on('uncaughtException', onUncaught);
    cluster = await startPgCluster();
  }, 120_000);
  afterEach(async () => {
    for (const handle of handles.splice(0)) await handle.close().catch(() => undefined);
    expect(uncaught).toEqual([]);
  });
  afterAll(async () => {
    process.removeListener('uncaughtException', onUncaught);
    await cluster?.dispose();
  });

  it('listens again after the server restarts, tells subscribers, and delivers again', async () => {
    const clock = new ManualClock();
    const entries: LogEntry[] = [];
    const open = () =>
      openDatabase({
        kind: 'postgres',
        url: cluster.url,
        logger: recordingLogger(entries),
        poolSize: 2,
        clock,
      });
    const listener = await open();
    const sender = await open();
    handles.push(listener, sender);
    const bus = await listener.controlBus();
    const received = collect(bus, 'settings');
    const resumed = collect(bus, CONTROL_BUS_RESUMED);
    const senderBus = await sender.controlBus();
    await senderBus.publish('settings', { scopeId: 'a', version: 1 });
    await eventually(() => received.length === 1);

    await cluster.restart();
    // The waits between attempts run on the manual clock: move it while the bus sleeps.
    await eventually(
      async () => {
        if (clock.pendingSleeps().length > 0) await clock.advance(1_000);
        return resumed.length === 1;
      },
      { timeoutMs: 60_000, description: 'the bus listens again' },
    );
    await eventually(
      async () =>
        senderBus.publish('settings', { scopeId: 'a', version: 2 }).then(
          () => received.length >= 2,
          () => false,
        ),
      { timeoutMs: 30_000 },
    );
    expect(received.at(-1)).toEqual({ scopeId: 'a', version: 2 });
    expect(
      entries.some((entry) => entry.message?.includes('listening for control messages again')),
    ).toBe(true);
  }, 120_000);
});
