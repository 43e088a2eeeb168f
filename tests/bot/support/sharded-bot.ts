/**
 * Helpers for the sharded end-to-end files: a world with guilds on chosen shards, waits for
 * shard processes (their manager's log lines), and "every guild answered exactly once".
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { FakeDiscord } from '../../fake-discord/fake-discord.ts';
import { ProcessOutput } from '../../support/process-output.ts';
import {
  signalProcessGroup,
  trackProcessGroup,
  untrackProcessGroup,
} from '../../support/test-resources.ts';
import { textScript } from '../../support/llm-stand-in/script.ts';
import type { LlmStandIn } from '../../support/llm-stand-in/llm-stand-in.ts';
import type { BotProcess, LogLine } from '../../support/scenario-runner.ts';
import { botMessagesIn } from './bot-harness.ts';

const ENTRYPOINT = path.resolve(import.meta.dirname, '../../../src/main.ts');

export interface ShardedWorld {
  member: { id: string };
  /** One guild per shard, `guilds[k]` on shard k. */
  guilds: { id: string; channelId: string; shardId: number }[];
}

export function buildShardedWorld(discord: FakeDiscord, shardCount: number): ShardedWorld {
  const member = discord.createUser({ username: 'member' });
  const guilds = Array.from({ length: shardCount }, (_, shardId) => {
    const guild = discord.createGuild({ name: `shard-${shardId}`, onShard: [shardId, shardCount] });
    discord.addMember({ guildId: guild.id, userId: member.id });
    const channel = discord.createChannel({ guildId: guild.id, name: 'general' });
    return { id: guild.id, channelId: channel.id, shardId };
  });
  return { member, guilds };
}

/** The manager's "shard process started" line for the process running `shardId`. */
export function startedLines(bot: BotProcess, label: string): LogLine[] {
  return bot
    .logs()
    .filter((line) => line.json?.['msg'] === 'shard process started')
    .filter((line) => line.json?.['shards'] === label);
}

/** Resolves once the manager has logged `count` ready processes for `label` in total. */
export async function waitForReadyProcess(
  bot: BotProcess,
  label: string,
  count = 1,
): Promise<void> {
  const isReady = (line: LogLine): boolean =>
    line.json?.['msg'] === 'shard process ready' && line.json['shards'] === label;
  while (bot.logs().filter(isReady).length < count) {
    const seen = bot.logs().filter(isReady).length;
    await bot.waitForLog((line) => isReady(line) && bot.logs().filter(isReady).length > seen);
  }
}

/**
 * Mentions the bot in each guild, waits for every reply, and returns each channel's bot
 * messages once the turns are finished (exactly one each when nothing was answered twice).
 */
export async function askEveryGuild(options: {
  discord: FakeDiscord;
  llm: LlmStandIn;
  bots: readonly BotProcess[];
  world: ShardedWorld;
  guilds?: ShardedWorld['guilds'];
}): Promise<Map<string, number>> {
  const { discord, llm, world } = options;
  const guilds = options.guilds ?? world.guilds;
  llm.handle(() => textScript('Hello from my shard!'));
  const triggers = guilds.map((guild) =>
    discord.postMessage({
      authorId: world.member.id,
      channelId: guild.channelId,
      content: `<@${discord.botUserId}> which shard are you on?`,
    }),
  );
  await Promise.all(triggers.map((trigger) => anyTurnFinished(options.bots, trigger.id)));
  return new Map(
    guilds.map((guild) => [guild.channelId, botMessagesIn(discord, guild.channelId).length]),
  );
}

/** The first "turn finished" for `messageId` in any of the processes' output. */
export function anyTurnFinished(
  bots: readonly BotProcess[],
  messageId: string,
  timeoutMs = 120_000,
): Promise<void> {
  const finished = (line: LogLine): boolean =>
    line.json?.['msg'] === 'turn finished' && line.json['messageId'] === messageId;
  if (bots.some((bot) => bot.logs().some(finished))) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const unsubscribes = bots.map((bot) =>
      bot.subscribe((line) => {
        if (!finished(line)) return;
        done();
        resolve();
      }),
    );
    const timer = setTimeout(() => {
      done();
      reject(new Error(`no turn finished for ${messageId} within ${timeoutMs} ms`));
    }, timeoutMs);
    const done = (): void => {
      clearTimeout(timer);
      for (const unsubscribe of unsubscribes) unsubscribe();
    };
  });
}

/** How many turns answered `messageId`, over every process's output. */
export function turnsFor(bots: readonly BotProcess[], messageId: string): number {
  return bots
    .flatMap((bot) => bot.logs())
    .filter(
      (line) => line.json?.['msg'] === 'turn finished' && line.json['messageId'] === messageId,
    ).length;
}

/** Whether a process with this pid is still running (a zombie awaiting its reaper is not). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/**
 * Resolves once none of `pids` runs any more. Processes that are not our children cannot be
 * waited on, so this checks every 100 ms — a wait for a condition, with a ceiling.
 */
export async function waitUntilGone(pids: readonly number[], timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (pids.some(processAlive)) {
    if (Date.now() > deadline)
      throw new Error(
        `still running after ${timeoutMs} ms: ${pids.filter(processAlive).join(', ')}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * A manager started outside BotProcess (whose exit handler kills the whole process group, which
 * would hide whether the children leave on their own): its own group, tracked for teardown.
 */
export function spawnLoneManager(options: {
  discord: FakeDiscord;
  dataDir: string;
  env: Record<string, string>;
}): { child: ChildProcess; output: ProcessOutput; dispose: () => void } {
  const child = spawn(process.execPath, [ENTRYPOINT], {
    cwd: options.dataDir,
    env: {
      PATH: process.env.PATH ?? '',
      DISCORD_TOKEN: options.discord.token,
      DISCORD_API_URL: options.discord.apiUrl,
      DATA_DIR: options.dataDir,
      LOG_LEVEL: 'info',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const groupId = child.pid;
  if (groupId !== undefined) trackProcessGroup(groupId);
  const output = new ProcessOutput();
  output.capture(child);
  return {
    child,
    output,
    dispose: () => {
      if (groupId === undefined) return;
      signalProcessGroup(groupId, 'SIGKILL');
      untrackProcessGroup(groupId);
    },
  };
}
