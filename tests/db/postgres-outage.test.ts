/**
 * Turns, their usage, liveness locks and the recovery of unanswered messages across an outage
 * of a real PostgreSQL that the test stops and restarts (its own
 * cluster; skipped with a reason when initdb is absent). Waits in the code under test run on a
 * manual clock the test drives; only the server's own stop/start take real time.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from 'discord.js';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DeliveryPort } from '../../src/bot/delivery/delivery-port.ts';
import { DatabaseTurnJournal } from '../../src/bot/turns/database-turn-journal.ts';
import { DailyBudget } from '../../src/bot/limits/daily-budget.ts';
import { recoverUnanswered } from '../../src/bot/recovery/unanswered-recovery.ts';
import { claimMessage, RELEASED_CLAIM, unsettledClaims } from '../../src/db/claim-repository.ts';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.ts';
import { ensureScope } from '../../src/db/scope-settings-repository.ts';
import { failAbandonedTurns } from '../../src/db/turn-recovery.ts';
import { dailySpend } from '../../src/db/usage-repository.ts';
import { ManualClock } from '../../src/stream/testing/manual-clock.ts';
import type { TurnMetrics } from '../../src/stream/turn/turn-metrics.ts';
import { findPostgresBinaries, startPgCluster, type PgCluster } from '../support/pg-cluster.ts';
import { eventually } from '../tools/support/eventually.ts';
import { recordingLogger, type LogEntry } from '../tools/support/recording-logger.ts';

const available = findPostgresBinaries();
const SCOPE = '123456789012345678';
const CHANNEL = '223456789012345678';
const SECOND = 1_000;

const METRICS = { durationMs: 1, inputTokens: 10, outputTokens: 20 } as unknown as TurnMetrics;

describe.skipIf('skipped' in available)('a PostgreSQL outage (own cluster)', () => {
  let cluster: PgCluster;
  const handles: DatabaseHandle[] = [];
  const uncaught: unknown[] = [];
  const onUncaught = (error: unknown): void => void uncaught.push(error);

  beforeAll(async () => {
    process.on('uncaughtException', onUncaught);
    cluster = await startPgCluster();
    const setup = await open({ clock: new ManualClock() });
    await setup.handle.migrate();
    await ensureScope(setup.handle.db, SCOPE, 'guild');
  }, 120_000);
  afterEach(async () => {
    await cluster.start().catch(() => undefined); // a failed test may have left it stopped
    for (const handle of handles.splice(0)) await handle.close().catch(() => undefined);
    expect(uncaught).toEqual([]);
  });
  afterAll(async () => {
    process.removeListener('uncaughtException', onUncaught);
    await cluster?.dispose();
  });

  async function open(options: { clock: ManualClock; peerReconnectGraceMs?: number }) {
    const entries: LogEntry[] = [];
    const handle = await openDatabase({
      kind: 'postgres',
      url: cluster.url,
      logger: recordingLogger(entries),
      poolSize: 4,
      clock: options.clock,
      ...(options.peerReconnectGraceMs === undefined
        ? {}
        : { peerReconnectGraceMs: options.peerReconnectGraceMs }),
    });
    handles.push(handle);
    return { handle, entries };
  }

  /** Moves the manual clock in steps while the code under test sleeps on it, until `done`. */
  async function driveClock(clock: ManualClock, done: () => boolean | Promise<boolean>) {
    await eventually(
      async () => {
        if (await done()) return true;
        if (clock.pendingSleeps().length > 0) await clock.advance(SECOND);
        return false;
      },
      { timeoutMs: 60_000, description: 'the clock-driven wait to end' },
    );
  }

  async function query<Row extends pg.QueryResultRow>(text: string, values: unknown[] = []) {
    const client = new pg.Client({ connectionString: cluster.url });
    await client.connect();
    try {
      return (await client.query<Row>(text, values)).rows;
    } finally {
      await client.end();
    }
  }

  /** The liveness locks held on the server, by instance id. */
  async function livenessLocksOf(instanceId: string): Promise<number> {
    const rows = await query<{ count: number }>(
      `select count(*)::int as count from pg_locks
        where locktype = 'advisory' and classid = x'746f6d6f'::int::oid and objsubid = 2
          and objid::bigint = (hashtext($1)::bigint & 4294967295) and granted`,
      [instanceId],
    );
    return rows[0]?.count ?? 0;
  }

  async function turnRow(turnId: string) {
    const rows = await query<{ status: string; content: string; ids: string[] }>(
      `select status, content, discord_message_ids as ids from conversation_turns where id = $1`,
      [turnId],
    );
    return rows[0];
  }

  function journalOf(handle: DatabaseHandle, clock: ManualClock, entries: LogEntry[]) {
    return new DatabaseTurnJournal({
      db: handle.db,
      botUserId: 'bot',
      botName: 'Tomo',
      instanceId: 'instance-journal',
      clock,
      logger: recordingLogger(entries),
    });
  }

  async function startTurn(journal: DatabaseTurnJournal): Promise<string> {
    const turnId = randomUUID();
    await journal.start({ turnId, scopeId: SCOPE, channelId: CHANNEL, triggerMessageId: turnId });
    return turnId;
  }

  it('records a turn whose journal was open across a restart as complete, with its text and message ids', async () => {
    const clock = new ManualClock();
    const { handle, entries } = await open({ clock });
    const journal = journalOf(handle, clock, entries);
    const turnId = await startTurn(journal);

    await cluster.stop();
    let finished = false;
    const finishing = journal
      .finish(turnId, {
        content: 'A whole reply the member saw.',
        discordMessageIds: ['900000000000000001', '900000000000000002'],
        status: 'complete',
        metrics: METRICS,
      })
      .finally(() => (finished = true));
    // The first write failed and the reply is held in memory (or, unfixed, the write gave up).
    await Promise.race([clock.untilSleeping(), finishing]);
    await cluster.start();
    await driveClock(clock, () => finished);
    await finishing;

    expect(await turnRow(turnId)).toEqual({
      status: 'complete',
      content: 'A whole reply the member saw.',
      ids: ['900000000000000001', '900000000000000002'],
    });
    expect(entries.map((entry) => entry.message)).toContain(
      'recorded the end of the turn after the database came back',
    );
  }, 60_000);

  it('survives a connection cut while a transaction holds it between statements', async () => {
    const { handle, entries } = await open({ clock: new ManualClock() });
    const failed = await handle.db
      .transaction(async (transaction) => {
        const backend: unknown = await transaction.execute(sql`select pg_backend_pid() as pid`);
        const { rows } = backend as { rows: { pid: number }[] };
        await query('select pg_terminate_backend($1)', [rows[0]?.pid]);
        // Between two statements: the cut reaches the lent client with no query to fail.
        await eventually(() =>
          entries.some((entry) => entry.message === 'a database connection was cut'),
        );
        await transaction.execute(sql`select 1`);
      })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(failed).toBeInstanceOf(Error);
    // The pool dropped the cut client: the next statement gets a fresh one.
    const next: unknown = await handle.db.execute(sql`select 1 as one`);
    expect((next as { rows: unknown[] }).rows).toEqual([{ one: 1 }]);
  }, 60_000);

  it('waits out a restart at the start of a turn instead of failing it', async () => {
    const clock = new ManualClock();
    const { handle, entries } = await open({ clock });
    const journal = journalOf(handle, clock, entries);
    await cluster.stop();
    let started = false;
    const turnId = randomUUID();
    const starting = journal
      .start({ turnId, scopeId: SCOPE, channelId: CHANNEL, triggerMessageId: turnId })
      .finally(() => (started = true));
    // Unfixed, the first refused connection failed the turn here.
    await Promise.race([clock.untilSleeping(), starting]);
    expect(started).toBe(false);
    await cluster.start();
    await driveClock(clock, () => started);
    await starting;
    expect((await turnRow(turnId))?.status).toBe('streaming');
    // Ended, so the judging of abandoned turns below counts only its own.
    await journal.finish(turnId, {
      content: 'Answered once the database was back.',
      discordMessageIds: [],
      status: 'complete',
      metrics: METRICS,
    });
  }, 60_000);

  it('holds the end of a turn and its token usage through a 30 s outage', async () => {
    const clock = new ManualClock();
    const { handle, entries } = await open({ clock });
    const journal = journalOf(handle, clock, entries);
    const budget = new DailyBudget({ db: handle.db, clock });
    const turnId = await startTurn(journal);
    const usedBefore = (await dailySpend(handle.db, SCOPE, new Date(clock.now()))).tokens;

    await cluster.stop();
    const outageStartedAt = clock.now();
    let settled = 0;
    const writes = Promise.all([
      journal
        .finish(turnId, {
          content: 'Written during the outage.',
          discordMessageIds: ['900000000000000003'],
          status: 'stopped',
          metrics: METRICS,
        })
        .finally(() => (settled += 1)),
      budget.record(SCOPE, { inputTokens: 100, outputTokens: 23 }).finally(() => (settled += 1)),
    ]);
    await driveClock(clock, () => clock.now() - outageStartedAt >= 30 * SECOND);
    expect(settled).toBe(0);
    await cluster.start();
    await driveClock(clock, () => settled === 2);
    await writes;

    expect(await turnRow(turnId)).toMatchObject({
      status: 'stopped',
      content: 'Written during the outage.',
    });
    expect((await dailySpend(handle.db, SCOPE, new Date(clock.now()))).tokens).toBe(
      usedBefore + 123,
    );
    const retries = entries.filter((entry) => entry.message?.startsWith('database unreachable'));
    expect(retries.filter((entry) => entry.level === 'warn')).toHaveLength(1);
  }, 60_000);

  it('takes its liveness lock again after a restart, without an uncaught exception', async () => {
    const clock = new ManualClock();
    const { handle, entries } = await open({ clock });
    const release = await handle.liveness.hold('instance-restarted');
    const other = await open({ clock });
    const releaseOther = await other.handle.liveness.hold('instance-other');
    expect(await livenessLocksOf('instance-restarted')).toBe(1);

    await cluster.restart();
    expect(await livenessLocksOf('instance-restarted')).toBe(0);
    await driveClock(
      clock,
      async () =>
        (await livenessLocksOf('instance-restarted')) === 1 &&
        (await livenessLocksOf('instance-other')) === 1,
    );
    expect(entries.map((entry) => entry.message)).toEqual(
      expect.arrayContaining([
        "lost the database connection holding this process's liveness lock: taking it again",
        'liveness lock taken again',
      ]),
    );
    expect(await handle.liveness.isAlive('instance-restarted')).toBe(true);

    await release();
    await releaseOther();
    expect(await livenessLocksOf('instance-restarted')).toBe(0);
    expect(await handle.liveness.isAlive('instance-restarted')).toBe(false);
  }, 60_000);

  it("never fails a live process's turn around a restart, and fails a dead one's after the grace", async () => {
    const clock = new ManualClock();
    const live = await open({ clock, peerReconnectGraceMs: 0 });
    const journal = new DatabaseTurnJournal({
      db: live.handle.db,
      botUserId: 'bot',
      botName: 'Tomo',
      instanceId: 'instance-live',
      clock,
    });
    await live.handle.liveness.hold('instance-live');
    const liveTurn = await startTurn(journal);
    const deadJournal = new DatabaseTurnJournal({
      db: live.handle.db,
      botUserId: 'bot',
      botName: 'Tomo',
      instanceId: 'instance-dead',
    });
    const deadTurn = await startTurn(deadJournal);

    await cluster.restart();
    // The live process has not taken its lock again yet: it judges nobody.
    expect(await failAbandonedTurns(live.handle.db, live.handle.liveness)).toBe(0);
    // A peer with the default grace does not judge right after the server started.
    const peer = await open({ clock: new ManualClock() });
    expect(await failAbandonedTurns(peer.handle.db, peer.handle.liveness)).toBe(0);
    expect((await turnRow(liveTurn))?.status).toBe('streaming');
    expect((await turnRow(deadTurn))?.status).toBe('streaming');

    await driveClock(clock, async () => (await livenessLocksOf('instance-live')) === 1);
    const judge = await open({ clock: new ManualClock(), peerReconnectGraceMs: 0 });
    expect(await failAbandonedTurns(judge.handle.db, judge.handle.liveness)).toBe(1);
    expect((await turnRow(liveTurn))?.status).toBe('streaming');
    expect((await turnRow(deadTurn))?.status).toBe('failed');
  }, 60_000);

  it("never takes over a live peer's unanswered messages around a restart", async () => {
    const clock = new ManualClock();
    const peer = await open({ clock });
    await peer.handle.liveness.hold('instance-peer');
    const messageId = '323456789012345678';
    await claimMessage(peer.handle.db, {
      key: messageId,
      instanceId: 'instance-peer',
      channelId: CHANNEL,
    });

    await cluster.restart();
    // The peer is still waiting to take its lock again (its clock is not moved): its lock is
    // missing, yet it is alive and will answer the message itself.
    const judge = await open({ clock: new ManualClock() });
    const answered: string[] = [];
    let judgeAgainAsked = 0;
    const client = new Client({ intents: [] });
    try {
      const recovered = await recoverUnanswered({
        db: judge.handle.db,
        client,
        clock: new ManualClock(Date.now()),
        logger: recordingLogger([]),
        delivery: new DeliveryPort({ clock: new ManualClock(), logger: recordingLogger([]) }),
        instanceId: 'instance-judge',
        isAlive: (instanceId) => judge.handle.liveness.isAlive(instanceId),
        canJudgePeers: () => judge.handle.liveness.canJudgePeers(),
        answer: (message) => answered.push(message.id),
        onCannotJudgeYet: () => (judgeAgainAsked += 1),
      });
      expect(recovered).toBe(0);
      // Left for now, and the caller is asked to look again soon (not a minute later).
      expect(judgeAgainAsked).toBeGreaterThan(0);
    } finally {
      await client.destroy();
    }
    const claims = await unsettledClaims(judge.handle.db, new Date(0));
    expect(claims.find((claim) => claim.messageId === messageId)?.instanceId).toBe('instance-peer');
    expect(answered).toEqual([]);
  }, 60_000);

  it('hands a claim it could not recover back once the database is back, and looks again soon', async () => {
    const setup = await open({ clock: new ManualClock() });
    const messageId = '423456789012345678';
    await claimMessage(setup.handle.db, {
      key: messageId,
      instanceId: RELEASED_CLAIM,
      channelId: CHANNEL,
    });
    // Discord's REST on loopback: asked for the message's channel, the database goes down
    // first, then the channel is unknown (10003), so settling the claim fails, and so does the
    // first hand-back.
    let asked = false;
    const rest = createServer((request, response) => {
      const first = !asked;
      asked = true;
      void (first ? cluster.stop() : Promise.resolve()).then(() => {
        response.writeHead(404, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ message: 'Unknown Channel', code: 10003 }));
      });
    });
    await new Promise<void>((resolve) => rest.listen(0, '127.0.0.1', resolve));
    const port = (rest.address() as AddressInfo).port;
    const client = new Client({ intents: [], rest: { api: `http://127.0.0.1:${port}/api` } });
    client.rest.setToken('loopback-token');
    const clock = new ManualClock(Date.now());
    const judge = await open({ clock: new ManualClock() });
    let handedBack = 0;
    try {
      const pass = recoverUnanswered({
        db: judge.handle.db,
        client,
        clock,
        logger: recordingLogger([]),
        delivery: new DeliveryPort({ clock: new ManualClock(), logger: recordingLogger([]) }),
        instanceId: 'instance-judge',
        // Earlier tests' claims belong to live peers: only the handed-back one is recovered.
        isAlive: () => Promise.resolve(true),
        canJudgePeers: () => Promise.resolve(true),
        answer: () => undefined,
        onHandedBack: () => (handedBack += 1),
      });
      await eventually(() => asked && clock.pendingSleeps().length > 0, {
        timeoutMs: 60_000,
        description: 'the hand-back to wait out the outage',
      });
      await cluster.start();
      let finished = false;
      void pass.finally(() => (finished = true));
      await driveClock(clock, () => finished);
      expect(await pass).toBe(0);
    } finally {
      await client.destroy();
      await new Promise((resolve) => rest.close(resolve));
    }
    // Offered to the next pass (held by this live process, no pass would have taken it again).
    const claims = await unsettledClaims(judge.handle.db, new Date(0));
    expect(claims.find((claim) => claim.messageId === messageId)?.instanceId).toBe(RELEASED_CLAIM);
    expect(handedBack).toBe(1);
  }, 120_000);
});
