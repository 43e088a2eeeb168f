/**
 * Issue 13, sharding end to end: `npm start` with SHARD_COUNT runs discord.js's ShardingManager
 * against the loopback Discord (4 shards, max_concurrency 2), on one host and split over two
 * "hosts" (two managers, SHARD_IDS=0-1 and 2-3) sharing one PostgreSQL database. Every guild's
 * mention is answered exactly once, a DM is answered (it arrives on shard 0), IDENTIFYs respect
 * max_concurrency, a SIGKILLed shard process comes back, and no child outlives its manager.
 *
 * Sharding needs PostgreSQL (the embedded database serves one process): without
 * TEST_DATABASE_URL these tests are skipped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { busiestIdentifyWindow } from '../fake-discord/gateway/shard-routing.ts';
import { startFakeDiscord, type FakeDiscord } from '../fake-discord/fake-discord.ts';
import { createServerDatabase, testServerUrl, type BotDatabase } from '../support/bot-database.ts';
import { LlmStandIn } from '../support/llm-stand-in/llm-stand-in.ts';
import { textScript } from '../support/llm-stand-in/script.ts';
import type { ProcessOutput } from '../support/process-output.ts';
import { startBot, type BotProcess, type LogLine } from '../support/scenario-runner.ts';
import { makeTemporaryFolder, removeTemporaryFolder } from '../support/test-resources.ts';
import { TEST_API_KEY, TEST_MODEL, botMessagesIn } from './support/bot-harness.ts';
import {
  anyTurnFinished,
  askEveryGuild,
  buildShardedWorld,
  processAlive,
  spawnLoneManager,
  startedLines,
  turnsFor,
  waitForReadyProcess,
  waitUntilGone,
  type ShardedWorld,
} from './support/sharded-bot.ts';

const SHARD_COUNT = 4;
const MAX_CONCURRENCY = 2;
/** The bound for a killed shard process to answer its guilds again. */
const RECOVERY_BOUND_MS = 30_000;
const serverUrl = testServerUrl();

interface Stage {
  discord: FakeDiscord;
  llm: LlmStandIn;
  database: BotDatabase;
  world: ShardedWorld;
}

async function startStage(): Promise<Stage> {
  const discord = await startFakeDiscord({
    rateLimitTimeScale: 0.1,
    waitTimeoutMs: 120_000,
    recommendedShards: SHARD_COUNT,
    maxConcurrency: MAX_CONCURRENCY,
    // Heartbeats every 2 s, so /healthz has a latency to report soon.
    heartbeatIntervalMs: 2_000,
  });
  const llm = await LlmStandIn.start();
  const database = await createServerDatabase(serverUrl ?? '');
  return { discord, llm, database, world: buildShardedWorld(discord, SHARD_COUNT) };
}

async function endStage(stage: Stage | undefined, bots: readonly BotProcess[]): Promise<void> {
  for (const bot of bots) await bot.dispose();
  await stage?.llm.close();
  await stage?.discord.close();
  await stage?.database.dispose();
}

function managerEnvironment(stage: Stage): Record<string, string> {
  return {
    ...stage.database.environment,
    OPENAI_BASE_URL: stage.llm.openAIBaseUrl,
    OPENAI_API_KEY: TEST_API_KEY,
    DEFAULT_PROVIDER: 'openai',
    DEFAULT_MODEL: TEST_MODEL,
    SHUTDOWN_GRACE_MS: '5000',
  };
}

function startManager(stage: Stage, env: Record<string, string>): BotProcess {
  return startBot({
    discord: stage.discord,
    logLevel: 'info',
    env: { ...managerEnvironment(stage), ...env },
  });
}

describe.skipIf(serverUrl === undefined)(
  'sharding with discord.js (needs PostgreSQL: skipped without TEST_DATABASE_URL)',
  () => {
    describe('SHARD_COUNT=auto (4) on one host', () => {
      let stage: Stage | undefined;
      let manager: BotProcess;
      beforeAll(async () => {
        stage = await startStage();
        manager = startManager(stage, { SHARD_COUNT: 'auto', METRICS_PORT: '0' });
        for (const shardId of [0, 1, 2, 3]) await waitForReadyProcess(manager, String(shardId));
      });
      afterAll(() => endStage(stage, manager === undefined ? [] : [manager]));

      it('answers every guild’s mention exactly once, each on its own shard', async () => {
        const { discord, llm, world } = stage as Stage;
        const replies = await askEveryGuild({ discord, llm, bots: [manager], world });
        expect([...replies.values()]).toEqual([1, 1, 1, 1]);
        for (const line of manager
          .logs()
          .filter((entry) => entry.json?.['msg'] === 'turn finished'))
          expect(line.json?.['shard']).toMatch(/^[0-3]$/);
      });

      it('answers a DM (it arrives on shard 0)', async () => {
        const { discord, llm, world } = stage as Stage;
        llm.handle(() => textScript('Hello in private!'));
        const dm = discord.openDirectMessage(world.member.id);
        const trigger = discord.postMessage({
          authorId: world.member.id,
          channelId: dm.id,
          content: 'are you there?',
        });
        await anyTurnFinished([manager], trigger.id);
        expect(turnsFor([manager], trigger.id)).toBe(1);
        const turn = manager
          .logs()
          .find(
            (line) =>
              line.json?.['msg'] === 'turn finished' && line.json['messageId'] === trigger.id,
          );
        expect(turn?.json?.['shard']).toBe('0');
        expect(botMessagesIn(discord, dm.id).map((message) => message.content)).toEqual([
          'Hello in private!',
        ]);
      });

      it('/doctor says which shard and process answered', async () => {
        const { discord, world } = stage as Stage;
        const guild = world.guilds[3];
        if (guild === undefined) throw new Error('no guild on shard 3');
        const doctor = discord.invokeSlashCommand({
          userId: world.member.id,
          channelId: guild.channelId,
          command: 'doctor',
        });
        const answer = await doctor.waitForOriginal();
        expect(answer.embeds?.[0]?.footer?.text).toMatch(
          /^Answered by shard 3 of 4, process [0-9a-f]{8}$/,
        );
      });

      it('/healthz of each child reports its shard’s gateway and heartbeat latency', async () => {
        const ports = manager
          .logs()
          .filter((line) => line.json?.['msg'] === 'metrics listening on /metrics and /healthz')
          .map((line) => ({ shard: line.json?.['shard'], port: line.json?.['port'] as number }));
        expect(ports.map((entry) => entry.shard).sort()).toEqual(['0', '1', '2', '3']);
        const shardThree = ports.find((entry) => entry.shard === '3');
        const health = await until(async () => {
          const response = await fetch(`http://127.0.0.1:${shardThree?.port ?? 0}/healthz`);
          const body = (await response.json()) as {
            status: string;
            shards: { heartbeatLatencyMs: number | null }[];
          };
          return body.shards[0]?.heartbeatLatencyMs === null ? undefined : body;
        });
        expect(health).toMatchObject({
          status: 'ok',
          pid: expect.any(Number) as number,
          shards: [{ shard: 3, state: 'connected', healthy: true }],
        });
        expect(health.shards[0]?.heartbeatLatencyMs).toBeGreaterThanOrEqual(0);
      });

      it('starts the shards with at most max_concurrency IDENTIFYs per 5 s', () => {
        const identifies = (stage as Stage).discord.gateway.identifies();
        expect(identifies.map((record) => record.shard)).toHaveLength(SHARD_COUNT);
        expect(busiestIdentifyWindow(identifies)).toBeLessThanOrEqual(MAX_CONCURRENCY);
      });

      it('restarts a shard process killed with SIGKILL; its guild is answered again within 30 s', async () => {
        const { discord, llm, world } = stage as Stage;
        const pid = startedLines(manager, '2').at(-1)?.json?.['pid'];
        if (typeof pid !== 'number') throw new Error(`no pid for shard 2\n${manager.output()}`);
        const guildBefore = world.guilds[2];
        const answeredBefore =
          guildBefore === undefined ? 0 : botMessagesIn(discord, guildBefore.channelId).length;
        const killedAt = Date.now();
        process.kill(pid, 'SIGKILL');
        await waitForReadyProcess(manager, '2', 2);
        const guild = world.guilds[2];
        if (guild === undefined) throw new Error('no guild on shard 2');
        const replies = await askEveryGuild({
          discord,
          llm,
          bots: [manager],
          world,
          guilds: [guild],
        });
        const recoveryMs = Date.now() - killedAt;
        console.info(`shard 2 killed with SIGKILL: answered again after ${recoveryMs} ms`);
        expect(replies.get(guild.channelId)).toBe(answeredBefore + 1);
        expect(recoveryMs).toBeLessThan(RECOVERY_BOUND_MS);
        expect(processAlive(pid)).toBe(false);
      });

      it('stops every child on SIGTERM to the manager', async () => {
        const pids = manager
          .logs()
          .filter((line) => line.json?.['msg'] === 'shard process started')
          .map((line) => line.json?.['pid'] as number);
        expect(await manager.stop()).toEqual({ code: 0, signal: null });
        const stopped = manager
          .logs()
          .filter((line) => line.json?.['msg'] === 'shard process stopped');
        expect(stopped).toHaveLength(SHARD_COUNT);
        expect(pids.filter(processAlive)).toEqual([]);
      });
    });

    describe('two hosts: SHARD_IDS=0-1 and 2-3 of SHARD_COUNT=4', () => {
      let stage: Stage | undefined;
      const hosts: BotProcess[] = [];
      beforeAll(async () => {
        stage = await startStage();
        hosts.push(startManager(stage, { SHARD_COUNT: '4', SHARD_IDS: '0-1' }));
        hosts.push(startManager(stage, { SHARD_COUNT: '4', SHARD_IDS: '2-3' }));
        const [first, second] = hosts as [BotProcess, BotProcess];
        for (const shardId of [0, 1]) await waitForReadyProcess(first, String(shardId));
        for (const shardId of [2, 3]) await waitForReadyProcess(second, String(shardId));
      });
      afterAll(() => endStage(stage, hosts));

      it('answers every guild’s mention exactly once across the two hosts', async () => {
        const { discord, llm, world } = stage as Stage;
        const replies = await askEveryGuild({ discord, llm, bots: hosts, world });
        expect([...replies.values()]).toEqual([1, 1, 1, 1]);
        const sessions = discord.gateway.sessions().filter((session) => session.connected);
        expect(sessions.map((session) => session.shard[0]).sort()).toEqual([0, 1, 2, 3]);
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

/** Resolves with the first `count` lines whose msg is `message` (a ceiling, not a sleep). */
function linesOf(output: ProcessOutput, message: string, count: number): Promise<LogLine[]> {
  const matching = (): LogLine[] => output.lines().filter((line) => line.json?.['msg'] === message);
  return new Promise((resolve, reject) => {
    const check = (): void => {
      if (matching().length < count) return;
      done();
      resolve(matching());
    };
    const unsubscribe = output.subscribe(check);
    const timer = setTimeout(() => {
      done();
      reject(new Error(`fewer than ${count} "${message}" lines\n${output.text()}`));
    }, 240_000);
    const done = (): void => {
      clearTimeout(timer);
      unsubscribe();
    };
    check();
  });
}

/** Calls `probe` every 200 ms until it returns a value (a wait for a condition, with a ceiling). */
async function until<T>(probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`no answer within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
