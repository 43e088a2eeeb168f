/**
 * Fault suite, PostgreSQL rows: a real server of the suite's own (initdb and
 * pg_ctl on a free port, tests/support/pg-cluster.ts) restarted under the REAL bot process
 * mid-reply; stopped for 5 s and 30 s while a reply streams and new mentions arrive in two
 * channels; stopped while a member stops the streaming reply; stopped while the bot gets SIGTERM.
 * Besides every row's columns (support/postgres-row.ts): no delivered reply recorded `failed`,
 * the liveness lock held again (pg_locks), nothing reached `uncaughtException`. A real outage
 * takes real time: the sleeps below are the outage lengths under test; everything else
 * waits for events, with ROW_WAIT_CEILING_MS.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { APIMessage } from 'discord-api-types/v10';
import { afterAll, afterEach, beforeAll, describe } from 'vitest';
import { findPostgresBinaries, startPgCluster, type PgCluster } from '../support/pg-cluster.ts';
import { faultRow } from './support/fault-row.ts';
import { FaultWorld, NEXT_MENTION_ANSWER } from './support/fault-world.ts';
import { lockRetakes } from './support/postgres-checks.ts';
import {
  LONG_ANSWER,
  SECOND_PART,
  SERVER_ERROR,
  SUPERVISOR_PATIENCE_MS,
  accepted,
  concludeRow,
  holdLongReply,
  isHoldingLine,
  isStoppedLine,
} from './support/postgres-row.ts';

const binaries = findPostgresBinaries();
const NO_BINARIES = 'skipped' in binaries ? `${binaries.skipped} (PostgreSQL binaries)` : undefined;

describe('PostgreSQL faults', () => {
  let cluster: PgCluster | undefined;
  const disposals: Array<() => Promise<unknown>> = [];

  beforeAll(async () => {
    if (NO_BINARIES === undefined) cluster = await startPgCluster();
  });
  afterEach(async () => {
    // A row that failed mid-outage must not leave the next one without a server.
    await cluster?.start().catch(() => undefined);
  });
  afterAll(async () => {
    for (const dispose of disposals.splice(0).reverse()) await dispose().catch(() => undefined);
    await cluster?.dispose();
  });

  async function newWorld(): Promise<{ world: FaultWorld; server: PgCluster }> {
    if (cluster === undefined) throw new Error('no PostgreSQL cluster');
    const server = cluster;
    const world = await FaultWorld.start({ serverUrl: server.url });
    disposals.push(() => world.dispose());
    return { world, server };
  }

  faultRow({
    fault: 'PostgreSQL: restarted mid-reply (pg_ctl stop -m fast, start)',
    unavailable: NO_BINARIES,
    run: async () => {
      const { world, server } = await newWorld();
      const channelId = world.channel('pg-restart');
      const gate = holdLongReply(world);
      const [alice] = world.members;
      const trigger = world.mention({ channelId, authorId: alice?.id ?? '', text: 'a long story' });
      await world.until(() => world.seen(trigger));
      const retakesBefore = lockRetakes(world);
      await server.restart();
      const restoredAt = Date.now();
      gate.release();
      return concludeRow({
        world,
        server,
        triggers: [trigger],
        channelIds: [channelId],
        retakesBefore,
        restoredAt,
        expected: [{ trigger, answer: LONG_ANSWER }],
      });
    },
  });

  for (const outageMs of [5_000, 30_000]) {
    faultRow({
      fault: `PostgreSQL: ${outageMs / 1000} s outage while a reply streams and mentions arrive in two channels`,
      unavailable: NO_BINARIES,
      run: async () => {
        const { world, server } = await newWorld();
        const streaming = world.channel(`outage-${outageMs}-a`);
        const quiet = world.channel(`outage-${outageMs}-b`);
        const gate = holdLongReply(world);
        const [alice, bob, carol] = world.members;
        const first = world.mention({
          channelId: streaming,
          authorId: alice?.id ?? '',
          text: 'a long story',
        });
        await world.until(() => world.seen(first));
        // Accepted before the outage: it waits in the channel's queue behind the live reply.
        const queuedBefore = world.mention({
          channelId: streaming,
          authorId: bob?.id ?? '',
          text: 'and one for me after that?',
        });
        await world.until(() => accepted(world, queuedBefore));
        const retakesBefore = lockRetakes(world);
        await server.stop();
        const stoppedAt = Date.now();
        const during = [
          world.mention({
            channelId: streaming,
            authorId: carol?.id ?? '',
            text: 'me too, please',
          }),
          world.mention({ channelId: quiet, authorId: carol?.id ?? '', text: 'hello over here' }),
        ];
        // The reply ends in the middle of the outage: its end-of-turn record meets no server.
        await sleep(outageMs / 2);
        gate.release();
        await world.until(() =>
          world.botMessages(streaming).some((m) => m.content.includes(SECOND_PART)),
        );
        await sleep(Math.max(0, stoppedAt + outageMs - Date.now()));
        await server.start();
        const restoredAt = Date.now();
        return concludeRow({
          world,
          server,
          triggers: [first, queuedBefore, ...during],
          channelIds: [streaming, quiet],
          retakesBefore,
          restoredAt,
          expected: [
            { trigger: first, answer: LONG_ANSWER },
            ...[queuedBefore, ...during].map((trigger) => ({
              trigger,
              answer: NEXT_MENTION_ANSWER,
            })),
          ],
        });
      },
    });
  }

  faultRow({
    fault: 'PostgreSQL: 5 s outage; a member stops the streaming reply while a mention waits',
    unavailable: NO_BINARIES,
    run: async () => {
      const outageMs = 5_000;
      const { world, server } = await newWorld();
      const channelId = world.channel('outage-stop');
      const gate = holdLongReply(world);
      const [alice, , carol] = world.members;
      const first = world.mention({ channelId, authorId: alice?.id ?? '', text: 'a long story' });
      await world.until(() => world.seen(first));
      const retakesBefore = lockRetakes(world);
      await server.stop();
      const stoppedAt = Date.now();
      const holding = () => world.harness.bot.logs().filter(isHoldingLine).length;
      const heldBefore = holding();
      const waiting = world.mention({ channelId, authorId: carol?.id ?? '', text: 'me too' });
      await world.until(() => holding() > heldBefore);
      // The stop is for the live reply: it must not wait behind carol's mention, which waits
      // for the database.
      world.discord.postMessage({
        authorId: alice?.id ?? '',
        channelId,
        content: `<@${world.discord.botUserId}> stop`,
      });
      const stopped = await world.until(
        () => world.harness.bot.logs().some(isStoppedLine),
        Math.max(1, stoppedAt + outageMs - Date.now()),
      );
      gate.release();
      await sleep(Math.max(0, stoppedAt + outageMs - Date.now()));
      await server.start();
      const restoredAt = Date.now();
      const outcome = await concludeRow({
        world,
        server,
        triggers: [first, waiting],
        channelIds: [channelId],
        retakesBefore,
        restoredAt,
        expected: [{ trigger: waiting, answer: NEXT_MENTION_ANSWER }],
      });
      return {
        ...outcome,
        memberSaw: `${outcome.memberSaw}; stopped during the outage: ${stopped ? 'yes' : 'NO'}`,
        checks: [
          ...(outcome.checks ?? []),
          { name: 'the stop took effect while the database was down', passed: stopped },
        ],
      };
    },
  });

  faultRow({
    fault: 'PostgreSQL: SIGTERM during a 5 s outage while a mention waits, then restart',
    unavailable: NO_BINARIES,
    run: async () => {
      const outageMs = 5_000;
      const { world, server } = await newWorld();
      const channelId = world.channel('outage-sigterm');
      const { bot } = world.harness;
      const [alice] = world.members;
      await server.stop();
      const stoppedAt = Date.now();
      const waiting = world.mention({
        channelId,
        authorId: alice?.id ?? '',
        text: 'are you there?',
      });
      await world.until(() => bot.logs().some(isHoldingLine));
      // A supervisor waits so long after SIGTERM before it kills (systemd: 90 s; Docker: 10 s).
      const stopStartedAt = Date.now();
      const exited = await bot.stop({ timeoutMs: SUPERVISOR_PATIENCE_MS }).then(
        () => true,
        () => false,
      );
      const stopMs = Date.now() - stopStartedAt;
      await sleep(Math.max(0, stoppedAt + outageMs - Date.now()));
      await server.start();
      const restoredAt = Date.now();
      bot.restart();
      await bot.waitUntilConnected();
      const outcome = await concludeRow({
        world,
        server,
        triggers: [waiting],
        channelIds: [channelId],
        retakesBefore: undefined,
        restoredAt,
        expected: [],
        held: false,
      });
      return {
        ...outcome,
        memberSaw: `${outcome.memberSaw}; exited ${(stopMs / 1000).toFixed(1)} s after SIGTERM`,
        checks: [
          ...(outcome.checks ?? []),
          { name: `exited within ${SUPERVISOR_PATIENCE_MS} ms of SIGTERM`, passed: exited },
        ],
      };
    },
  });

  faultRow({
    fault: 'PostgreSQL: Retry pressed during a 5 s outage',
    unavailable: NO_BINARIES,
    run: async () => {
      const outageMs = 5_000;
      const { world, server } = await newWorld();
      const channelId = world.channel('outage-retry');
      const [alice] = world.members;
      world.harness.llm.handle(() => SERVER_ERROR);
      const trigger = world.mention({ channelId, authorId: alice?.id ?? '', text: 'a question' });
      const retryId = `retry:${trigger.id}`;
      const hasRetry = (message: APIMessage) =>
        JSON.stringify(message.components ?? []).includes(retryId);
      await world.until(() => world.seen(trigger, hasRetry));
      world.healProvider();
      const retakesBefore = lockRetakes(world);
      await server.stop();
      const stoppedAt = Date.now();
      const notice = world.botMessages(channelId).find(hasRetry);
      world.discord.pressButton({
        userId: alice?.id ?? '',
        messageId: notice?.id ?? '',
        customId: retryId,
      });
      await sleep(Math.max(0, stoppedAt + outageMs - Date.now()));
      await server.start();
      const restoredAt = Date.now();
      const retried = await world.until(() =>
        world.seen(trigger, (message) => message.content === NEXT_MENTION_ANSWER),
      );
      const outcome = await concludeRow({
        world,
        server,
        triggers: [trigger],
        channelIds: [channelId],
        retakesBefore,
        restoredAt,
        expected: [{ trigger, answer: NEXT_MENTION_ANSWER }],
      });
      return {
        ...outcome,
        memberSaw: `${outcome.memberSaw}; the Retry press was ${retried ? 'answered' : 'NOT answered'}`,
        checks: [
          ...(outcome.checks ?? []),
          { name: 'the Retry pressed during the outage was answered', passed: retried },
        ],
      };
    },
  });
});
