/**
 * Fault suite, process and scale rows: SIGKILL mid-reply then restart; two bot
 * processes on one PostgreSQL database and one gateway; a burst of 300 mentions. Each row has
 * its own world (bot process, loopback Discord, LLM stand-in, database).
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe } from 'vitest';
import { TEST_API_KEY, TEST_MODEL } from '../bot/support/bot-harness.ts';
import { testServerUrl } from '../support/bot-database.ts';
import { startBot, type BotProcess } from '../support/scenario-runner.ts';
import { createGate } from '../support/llm-stand-in/gate.ts';
import { describeSeen, faultRow } from './support/fault-row.ts';
import { FaultWorld, hasRetryButton, NEXT_MENTION_ANSWER } from './support/fault-world.ts';
import type { TriggerRecord } from './support/turn-accounting.ts';

const NO_POSTGRES =
  testServerUrl() === undefined ? 'needs a PostgreSQL server (TEST_DATABASE_URL)' : undefined;

/** Resident memory of a process, from /proc (Linux), in bytes. */
function residentBytes(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid ?? 0}/status`, 'utf8');
  const kilobytes = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
  return Number(kilobytes ?? 0) * 1024;
}

describe('process and scale faults', () => {
  const disposals: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const dispose of disposals.splice(0).reverse()) await dispose().catch(() => undefined);
  });

  async function newWorld(): Promise<FaultWorld> {
    const world = await FaultWorld.start();
    disposals.push(() => world.dispose());
    return world;
  }

  faultRow({
    fault: 'process: SIGKILL mid-reply, then restart',
    run: async () => {
      const world = await newWorld();
      const channelId = world.channel('sigkill');
      const gate = createGate();
      world.harness.llm.enqueue({
        steps: [
          { type: 'text', text: 'This answer will be cut short by a crash.\n\n' },
          { type: 'hold', gate },
          { type: 'text', text: 'Never sent.' },
          { type: 'finish', reason: 'stop' },
        ],
      });
      const [alice] = world.members;
      const trigger = world.mention({ channelId, authorId: alice?.id ?? '', text: 'a long story' });
      await world.until(() => world.seen(trigger));
      const { bot } = world.harness;
      await bot.kill();
      gate.release();
      const restartedAt = Date.now();
      bot.restart();
      await bot.waitUntilConnected();
      const recoveryMs = await world.nextMentionAnswered(channelId, restartedAt);
      // The cut reply's note and the next mention's answer race each other after the restart
      // (both written by the new process, through one channel's budget): the note is waited
      // for, with the row's ceiling, before what members saw is judged.
      await world.until(() => world.seen(trigger, hasRetryButton));
      const measurement = await world.measure([trigger], [channelId], {
        modelTexts: ['This answer will be cut short by a crash.'],
      });
      return { runs: 1, measurement, memberSaw: describeSeen(measurement.verdicts), recoveryMs };
    },
  });

  faultRow({
    fault: 'scale: two processes, one PostgreSQL, one gateway (50 mentions, 10 channels)',
    unavailable: NO_POSTGRES,
    run: async () => {
      const world = await newWorld();
      const { harness } = world;
      const second: BotProcess = startBot({
        discord: harness.discord,
        env: {
          ...harness.database.environment,
          OPENAI_BASE_URL: harness.llm.openAIBaseUrl,
          OPENAI_API_KEY: TEST_API_KEY,
          DEFAULT_PROVIDER: 'openai',
          DEFAULT_MODEL: TEST_MODEL,
        },
      });
      disposals.push(() => second.dispose());
      await second.waitUntilConnected();
      const guildId = harness.world.messagesGuild.id;
      // Ten members with five mentions each stay inside the per-member rate limit.
      const members = Array.from({ length: 10 }, (_unused, index) => {
        const user = harness.discord.createUser({ username: `member${index}` });
        harness.discord.addMember({ guildId, userId: user.id });
        return user;
      });
      const channels = Array.from({ length: 10 }, (_unused, index) =>
        world.channel(`shared-${index}`),
      );
      const triggers: TriggerRecord[] = [];
      for (let index = 0; index < 50; index += 1) {
        triggers.push(
          world.mention({
            channelId: channels[index % 10] ?? '',
            authorId: members[Math.floor(index / 5)]?.id ?? '',
            text: `question ${index}`,
          }),
        );
      }
      const lastOfChannel = channels.map((channelId) =>
        triggers.filter((trigger) => trigger.channelId === channelId).at(-1),
      );
      await world.until(() =>
        lastOfChannel.every((trigger) => trigger !== undefined && world.seen(trigger)),
      );
      const endedAt = Date.now();
      const recoveryMs = await world.nextMentionAnswered(channels[0] ?? '', endedAt);
      const measurement = await world.measure(triggers, channels);
      const replies = new Map<string, number>();
      for (const channelId of channels) {
        for (const message of world.botMessages(channelId)) {
          const repliedTo = message.message_reference?.message_id;
          if (repliedTo !== undefined) replies.set(repliedTo, (replies.get(repliedTo) ?? 0) + 1);
        }
      }
      const doubles = [...replies.values()].filter((count) => count > 1).length;
      const answeredBy = [harness.bot, second].map(
        (process) => process.logs().filter((line) => line.json?.['msg'] === 'turn finished').length,
      );
      return {
        runs: triggers.length,
        measurement,
        memberSaw: `${describeSeen(measurement.verdicts)}; ${doubles} double replies; turns per process ${answeredBy.join('/')}`,
        recoveryMs,
        checks: [{ name: `no double replies (${doubles})`, passed: doubles === 0 }],
      };
    },
  });

  faultRow({
    fault: 'load: 300 mentions in one channel from three members',
    run: async () => {
      const world = await newWorld();
      const channelId = world.channel('burst');
      const { bot } = world.harness;
      // Warm up: one answered mention, then the baseline.
      await world.nextMentionAnswered(channelId, Date.now());
      const before = residentBytes(bot.pid);
      const triggers: TriggerRecord[] = [];
      for (let index = 0; index < 300; index += 1) {
        const member = world.members[index % 3];
        triggers.push(
          world.mention({ channelId, authorId: member?.id ?? '', text: `burst ${index}` }),
        );
      }
      const members = world.members.map((member) => member.id);
      const notes = () =>
        world.botMessages(channelId).filter((message) => message.content !== NEXT_MENTION_ANSWER);
      const authorOf = (messageId: string | undefined) =>
        triggers.find((trigger) => trigger.id === messageId)?.authorId;
      await world.until(() => {
        const told = new Set(notes().map((note) => authorOf(note.message_reference?.message_id)));
        return members.every((member) => told.has(member));
      });
      // A fourth member's mention is answered only after everything queued before it (one
      // channel is served in order): when it is, the burst is over.
      const dave = world.discord.createUser({ username: 'dave' });
      world.discord.addMember({ guildId: world.harness.world.messagesGuild.id, userId: dave.id });
      const recoveryMs = await world.nextMentionAnswered(channelId, Date.now(), dave.id);
      const after = residentBytes(bot.pid);
      const notesPerMember = members.map(
        (member) =>
          notes().filter((note) => authorOf(note.message_reference?.message_id) === member).length,
      );
      const measurement = await world.measure(triggers, [channelId]);
      const growth = after / before;
      return {
        runs: triggers.length,
        measurement,
        memberSaw: `${describeSeen(measurement.verdicts).slice(0, 120)}; notes per member ${notesPerMember.join('/')}; RSS ${(before / 2 ** 20).toFixed(0)}→${(after / 2 ** 20).toFixed(0)} MB`,
        recoveryMs,
        checks: [
          {
            name: `told at most once each (${notesPerMember.join('/')})`,
            passed: notesPerMember.every((count) => count <= 1),
          },
          { name: `RSS within 20% (${growth.toFixed(2)}×)`, passed: growth <= 1.2 },
        ],
      };
    },
  });
});
