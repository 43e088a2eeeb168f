/**
 * The hard cases of cross-process stops, on both databases: a stop whose answer does not
 * come in time is judged by the turns journal and the liveness locks (never "nothing to stop"
 * for a live reply, never "sent" for ever to a dead one), and control messages from a newer
 * version of the bot are understood or ignored, never refused. On PostgreSQL the stop travels
 * over the real LISTEN/NOTIFY bus; the streaming process is made busy by a bus view that holds
 * what reaches it (BusyProcessBus), and time is a manual clock.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LocalControlBus, type ControlBus } from '../../src/core/control-bus.ts';
import { silentLogger } from '../../src/core/logger.ts';
import { CONTROL_TOPICS } from '../../src/bot/control/control-messages.ts';
import {
  CrossProcessStops,
  REMOTE_STOP_ANSWER_MS,
} from '../../src/bot/stops/cross-process-stops.ts';
import { streamingElsewhere } from '../../src/bot/stops/cross-process-stops.ts';
import { BusyProcessBus } from '../../src/bot/stops/testing/busy-process-bus.ts';
import { ensureScope } from '../../src/db/scope-settings-repository.ts';
import { startAssistantTurn } from '../../src/db/turn-repository.ts';
import { StopRegistry } from '../../src/stream/stop/stop-registry.ts';
import { ManualClock } from '../../src/stream/testing/manual-clock.ts';
import { testBackends, type TestDatabase } from '../support/test-database.ts';
import { eventually } from '../tools/support/eventually.ts';
import { recordingLogger } from '../tools/support/recording-logger.ts';

const SCOPE = '123456789012345678';
const ALICE = '200000000000000001';
const STREAMING = 'instance-streaming';
const ASKING = 'instance-asking';

let nextChannel = 900000000000000000n;
const newChannel = () => String((nextChannel += 1n));

describe.each(testBackends())('cross-process stops on $name', (backend) => {
  const logger = recordingLogger();
  let database: TestDatabase;
  let bus: ControlBus;
  let releaseStreaming: () => Promise<void>;
  let peersJudged = true;
  const closers: Array<() => void> = [];

  beforeAll(async () => {
    database = await backend.open({ logger });
    await database.migrate();
    await ensureScope(database.db, SCOPE, 'guild');
    // PGlite's own bus (listening too) is not shared: two processes are played on a local one.
    const databaseBus = await database.controlBus();
    bus = databaseBus.shared ? databaseBus : new LocalControlBus({ shared: true });
    releaseStreaming = await database.liveness.hold(STREAMING);
  });
  afterEach(() => {
    for (const close of closers.splice(0)) close();
    peersJudged = true;
  });
  afterAll(async () => {
    await releaseStreaming();
    await database.dispose();
  });

  /** A reply streamed by a busy process (its row in the journal), and another that hears a stop. */
  async function busyStreamingReply(owner = STREAMING) {
    const channelId = newChannel();
    const turnId = randomUUID();
    await startAssistantTurn(database.db, {
      id: turnId,
      scopeId: SCOPE,
      channelId,
      authorId: '600000000000000001',
      authorName: 'bot',
      triggerMessageId: '500000000000000001',
      instanceId: owner,
    });
    const clock = new ManualClock();
    const busy = new BusyProcessBus(bus);
    const registry = new StopRegistry();
    const streaming = new CrossProcessStops({
      stops: registry,
      bus: busy,
      clock,
      logger: silentLogger,
      instanceId: STREAMING,
    });
    const asking = new CrossProcessStops({
      stops: new StopRegistry(),
      bus,
      clock,
      logger: silentLogger,
      instanceId: ASKING,
      streamingElsewhere: streamingElsewhere({
        db: database.db,
        instanceId: ASKING,
        isAlive: (instanceId) => database.liveness.isAlive(instanceId),
        canJudgePeers: () => Promise.resolve(peersJudged),
      }),
    });
    streaming.start();
    asking.start();
    closers.push(
      () => streaming.close(),
      () => asking.close(),
    );
    const live = registry.begin({ channelId, turnId, requesterIds: [ALICE] });
    /** `/stop` (or a press, with `turnId`) heard by the other process, answered by nobody. */
    async function stopUnanswered(options: { turnId?: string } = {}) {
      const decision = asking.stopByCommand({
        channelId,
        authorId: ALICE,
        authorIsModerator: false,
        by: options.turnId === undefined ? 'command' : 'button',
        ...options,
      });
      await clock.untilSleeping();
      await clock.advance(REMOTE_STOP_ANSWER_MS);
      return decision;
    }
    return { channelId, turnId, busy, live, stopUnanswered };
  }

  it('says /stop was sent while the streaming process is busy, and the reply stops when it hears it', async () => {
    const { busy, live, stopUnanswered } = await busyStreamingReply();
    expect(await stopUnanswered()).toEqual({ stopped: false, reason: 'unconfirmed' });
    expect(live.signal.aborted).toBe(false);
    await eventually(() => busy.waiting === 1, {
      timeoutMs: 60_000,
      description: 'the stop reached the busy one',
    });
    busy.catchUp();
    expect(live.signal.aborted).toBe(true);
    expect(live.signal.reason).toMatchObject({ kind: 'command-stop', authorId: ALICE });
  });

  it('says a Stop press was sent for the live turn it names, and nothing to stop for another', async () => {
    const { turnId, busy, live, stopUnanswered } = await busyStreamingReply();
    expect(await stopUnanswered({ turnId: randomUUID() })).toEqual({
      stopped: false,
      reason: 'no-live-turn',
    });
    expect(await stopUnanswered({ turnId: 'not-a-uuid' })).toMatchObject({ stopped: false });
    expect(await stopUnanswered({ turnId })).toEqual({ stopped: false, reason: 'unconfirmed' });
    await eventually(() => busy.waiting === 3, {
      timeoutMs: 60_000,
      description: 'the three stops reached the busy one',
    });
    busy.catchUp();
    expect(live.signal.aborted).toBe(true);
  });

  it('finds nothing to stop behind a row left streaming by a process that died', async () => {
    const { stopUnanswered } = await busyStreamingReply('instance-that-died');
    expect(await stopUnanswered()).toEqual({ stopped: false, reason: 'no-live-turn' });
  });

  it('says the stop was sent while it cannot judge whether the owner died (server just restarted)', async () => {
    const { stopUnanswered } = await busyStreamingReply('instance-that-died');
    peersJudged = false;
    expect(await stopUnanswered()).toEqual({ stopped: false, reason: 'unconfirmed' });
  });

  it('leaves its own rows to its own registry: a row of this process is no reply elsewhere', async () => {
    const { stopUnanswered } = await busyStreamingReply(ASKING);
    expect(await stopUnanswered()).toEqual({ stopped: false, reason: 'no-live-turn' });
  });

  it('takes a stop from a newer version of the bot, and ignores its unknown topics at debug', async () => {
    const { channelId, busy, live } = await busyStreamingReply();
    busy.catchUp();
    const answers: unknown[] = [];
    closers.push(bus.subscribe(CONTROL_TOPICS.stopResult, (payload) => answers.push(payload)));
    const entries = logger.entries.length;
    const newer = JSON.stringify({
      topic: 'stop.batch',
      payload: { channelIds: [channelId] },
      version: 2,
    });
    await database.db.execute(sql`select pg_notify('tomodachi_control', ${newer})`);
    await bus.publish(CONTROL_TOPICS.stop, {
      requestId: 'request-newer',
      origin: 'instance-newer',
      by: 'reaction',
      channelId,
      authorId: ALICE,
      authorIsModerator: false,
      emoji: '🛑',
    });
    await eventually(() => answers.length === 1);
    expect(live.signal.aborted).toBe(true);
    expect(answers[0]).toMatchObject({ requestId: 'request-newer', stopped: true });
    const logged = logger.entries.slice(entries);
    expect(logged.filter((entry) => ['warn', 'error'].includes(entry.level))).toEqual([]);
    await eventually(() =>
      logger.entries.some(
        (entry) =>
          entry.level === 'debug' &&
          entry.message === 'ignored a control message of an unknown topic' &&
          entry.fields['topic'] === 'stop.batch',
      ),
    );
  });
});
