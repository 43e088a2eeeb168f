/**
 * Sharding over two "hosts": two managers with SHARD_IDS=0-1 (both shards in one
 * process, SHARDS_PER_PROCESS=2) and 2-3 (a process each) of SHARD_COUNT=4 on one PostgreSQL
 * database answer every guild exactly once and pace IDENTIFY bot-wide; a
 * manager killed with SIGKILL leaves no shard child behind.
 *
 * Sharding needs PostgreSQL: without TEST_DATABASE_URL these tests are skipped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { busiestIdentifyWindow } from '../fake-discord/gateway/shard-routing.ts';
import { testServerUrl } from '../support/bot-database.ts';
import type { BotProcess } from '../support/scenario-runner.ts';
import { makeTemporaryFolder, removeTemporaryFolder } from '../support/test-resources.ts';
import {
  askEveryGuild,
  spawnLoneManager,
  waitForReadyProcess,
  waitUntilGone,
} from './support/sharded-bot.ts';
import {
  MAX_CONCURRENCY,
  SHARD_COUNT,
  endStage,
  linesOf,
  managerEnvironment,
  startManager,
  startStage,
  type Stage,
} from './support/sharded-stage.ts';

describe.skipIf(testServerUrl() === undefined)(
  'sharding over two hosts (needs PostgreSQL: skipped without TEST_DATABASE_URL)',
  () => {
    describe('two hosts: SHARD_IDS=0-1 (one process of two shards) and 2-3 of SHARD_COUNT=4', () => {
      let stage: Stage | undefined;
      const hosts: BotProcess[] = [];
      beforeAll(async () => {
        stage = await startStage();
        hosts.push(
          startManager(stage, { SHARD_COUNT: '4', SHARD_IDS: '0-1', SHARDS_PER_PROCESS: '2' }),
        );
        hosts.push(startManager(stage, { SHARD_COUNT: '4', SHARD_IDS: '2-3' }));
        const [first, second] = hosts as [BotProcess, BotProcess];
        await waitForReadyProcess(first, '0,1');
        for (const shardId of [2, 3]) await waitForReadyProcess(second, String(shardId));
      });
      afterAll(() => endStage(stage, hosts));

      it('answers every guild’s mention exactly once across the two hosts', async () => {
        const { discord, llm, world } = stage as Stage;
        const replies = await askEveryGuild({ discord, llm, bots: hosts, world });
        expect([...replies.values()]).toEqual([1, 1, 1, 1]);
        const sessions = discord.gateway.sessions().filter((session) => session.connected);
        expect(sessions.map((session) => session.shard[0]).sort()).toEqual([0, 1, 2, 3]);
        const turnShards = (bot: BotProcess | undefined) =>
          (bot?.logs() ?? [])
            .filter((line) => line.json?.['msg'] === 'turn finished')
            .map((line) => line.json?.['shard'])
            .sort();
        expect(turnShards(hosts[0])).toEqual(['0,1', '0,1']);
        expect(turnShards(hosts[1])).toEqual(['2', '3']);
      });

      it('paces IDENTIFYs by max_concurrency across both hosts (through the database)', () => {
        const identifies = (stage as Stage).discord.gateway.identifies();
        expect(identifies).toHaveLength(SHARD_COUNT);
        expect(busiestIdentifyWindow(identifies)).toBeLessThanOrEqual(MAX_CONCURRENCY);
      });
    });

    describe('a manager killed with SIGKILL', () => {
      let stage: Stage | undefined;
      let lone: ReturnType<typeof spawnLoneManager> | undefined;
      let dataDir = '';
      afterAll(async () => {
        lone?.dispose();
        if (dataDir !== '') removeTemporaryFolder(dataDir);
        await endStage(stage, []);
      });

      it('leaves no shard child behind: each exits when its IPC channel to the manager closes', async () => {
        stage = await startStage();
        dataDir = makeTemporaryFolder('bot-sharding-');
        lone = spawnLoneManager({
          discord: stage.discord,
          dataDir,
          env: { ...managerEnvironment(stage), SHARD_COUNT: '2' },
        });
        const { output } = lone;
        const started = await linesOf(output, 'shard process ready', 2);
        expect(started).toHaveLength(2);
        const pids = output
          .lines()
          .filter((line) => line.json?.['msg'] === 'shard process started')
          .map((line) => line.json?.['pid'] as number);
        expect(pids).toHaveLength(2);
        lone.child.kill('SIGKILL');
        await waitUntilGone(pids);
        const goodbyes = output.lines().filter((line) => line.json?.['signal'] === 'parent-gone');
        expect(goodbyes).toHaveLength(2);
      });
    });
  },
);
