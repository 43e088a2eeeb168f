/**
 * Sharding end to end on one host: `npm start` with SHARD_COUNT=auto runs discord.js's
 * ShardingManager against the loopback Discord (4 shards, max_concurrency 2) on PostgreSQL.
 * Every guild's mention is answered exactly once, a DM is answered (it arrives on shard 0),
 * /doctor and /healthz name the shard, IDENTIFYs respect max_concurrency, a SIGKILLed shard
 * process comes back, and SIGTERM stops every child. Two hosts: sharding-hosts.test.ts.
 *
 * Sharding needs PostgreSQL (the embedded database serves one process): without
 * TEST_DATABASE_URL these tests are skipped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { busiestIdentifyWindow } from '../fake-discord/gateway/shard-routing.ts';
import { testServerUrl } from '../support/bot-database.ts';
import { textScript } from '../support/llm-stand-in/script.ts';
import type { BotProcess } from '../support/scenario-runner.ts';
import { botMessagesIn } from './support/bot-harness.ts';
import {
  anyTurnFinished,
  askEveryGuild,
  processAlive,
  startedLines,
  turnsFor,
  waitForReadyProcess,
} from './support/sharded-bot.ts';
import {
  MAX_CONCURRENCY,
  SHARD_COUNT,
  endStage,
  startManager,
  startStage,
  until,
  type Stage,
} from './support/sharded-stage.ts';

/** How soon a killed shard process's guilds are answered again: a respawn, not an outage. */
const RECOVERY_BOUND_MS = 30_000;
/** Channels streaming at once across the shards: enough to load every shard at the same time. */
const STREAMING_CHANNELS = 200;
const serverUrl = testServerUrl();

describe.skipIf(serverUrl === undefined)(
  'sharding with discord.js (needs PostgreSQL: skipped without TEST_DATABASE_URL)',
  () => {
    describe('SHARD_COUNT=auto (4) on one host', () => {
      let stage: Stage | undefined;
      let manager: BotProcess;
      beforeAll(async () => {
        stage = await startStage({ globalLimitTimeScale: 1 });
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

      it('streams into 200 channels at once across the 4 shards with no global 429', async () => {
        const { discord, llm } = stage as Stage;
        const channels = spreadChannels(stage as Stage, STREAMING_CHANNELS);
        const paragraphs = ['First, a thought.', 'Then another one.', 'And a last word.'];
        llm.handle(() => textScript(paragraphs.join('\n\n')));
        const refusedBefore = discord.globalRateLimitHits();
        const triggers = channels.map(({ channelId, memberId }) =>
          discord.postMessage({
            authorId: memberId,
            channelId,
            content: `<@${discord.botUserId}> tell me three things`,
          }),
        );
        await Promise.all(triggers.map((trigger) => anyTurnFinished([manager], trigger.id)));
        expect(triggers.map((trigger) => turnsFor([manager], trigger.id))).toEqual(
          triggers.map(() => 1),
        );
        const shown = channels.map(({ channelId }) =>
          botMessagesIn(discord, channelId)
            .map((message) => message.content)
            .join('\n'),
        );
        expect(
          shown.filter((text) => paragraphs.every((part) => text.includes(part))),
        ).toHaveLength(STREAMING_CHANNELS);
        // Each shard process paces at 40 / 4 per second. Control: DISCORD_GLOBAL_RATE_LIMIT=200
        // (50 per process) earned 604 global 429s here.
        expect(discord.globalRateLimitHits() - refusedBefore).toBe(0);
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
        const metrics = await fetch(`http://127.0.0.1:${shardThree?.port ?? 0}/metrics`);
        expect(await metrics.text()).toMatch(/^tomodachi_turns_live\{shard="3"\} 0$/m);
      });

      it('starts the shards with at most max_concurrency IDENTIFYs per 5 s', () => {
        const identifies = (stage as Stage).discord.gateway.identifies();
        const first = identifies[0]?.at ?? 0;
        console.info(
          `IDENTIFY (shard: ms after the first): ${identifies.map((record) => `${record.shard[0]}: ${record.at - first}`).join(', ')}`,
        );
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
  },
);

/** `count` new channels dealt round-robin over the shards' guilds, each with its own member. */
function spreadChannels(stage: Stage, count: number): { channelId: string; memberId: string }[] {
  const { discord, world } = stage;
  return Array.from({ length: count }, (_, index) => {
    const guild = world.guilds[index % world.guilds.length];
    if (guild === undefined) throw new Error('no guilds');
    const member = discord.createUser({ username: `streamer-${index}` });
    discord.addMember({ guildId: guild.id, userId: member.id });
    const channel = discord.createChannel({ guildId: guild.id, name: `stream-${index}` });
    return { channelId: channel.id, memberId: member.id };
  });
}
