/**
 * The bot's surroundings for `bench/bot.bench.ts`, in a child process so the bot process's
 * event-loop lag and RSS are the bot's own: the loopback Discord, the LLM stand-in (OpenAI
 * wire format, no delay between events) and the seeding of the stored history. Driven by the
 * parent over IPC (loopback-protocol.ts); latencies are timed here, where both the dispatch and
 * the bot's write are seen, on one clock.
 */
import { performance } from 'node:perf_hooks';
import { silentLogger } from '../../src/core/logger.ts';
import { openDatabase } from '../../src/db/database.ts';
import { startFakeDiscord, type FakeDiscord } from '../../tests/fake-discord/fake-discord.ts';
import { LlmStandIn } from '../../tests/support/llm-stand-in/llm-stand-in.ts';
import type { Script, ScriptStep } from '../../tests/support/llm-stand-in/script.ts';
import {
  replyParagraphs,
  type BenchChannel,
  type MentionRound,
  type RoundReport,
  type WorldCallName,
  type WorldCalls,
  type WorldInfo,
  type WorldReply,
  type WorldRequest,
  type WorldSetup,
  type BigWorldSetup,
} from './loopback-protocol.ts';
import { buildBigWorld, sendAmbient, type BigWorld } from './ambient-traffic.ts';
import { seedStoredTurns } from './stored-turns.ts';

const MESSAGE_WRITE = /^\/channels\/(\d+)\/messages(?:\/\d+)?$/;
const MESSAGE_CREATE = /^\/channels\/(\d+)\/messages$/;
const DELTA_SIZE = 24;
/** A bot that never answers fails the bench instead of hanging it. */
const FIRST_WRITE_DEADLINE_MS = 120_000;

interface Surroundings {
  discord: FakeDiscord;
  llm: LlmStandIn;
  channels: Map<string, BenchChannel>;
}

let surroundings: Surroundings | undefined;
let bigWorld: BigWorld | undefined;
let reply: Script = streamedReply(1);
/** Channels awaiting the bot's first write of a round → called with the time it arrived. */
const awaitingWrite = new Map<string, (at: number) => void>();
/** Rounds of mentions so far: a channel's members take turns by it. */
let roundsMentioned = 0;

function streamedReply(paragraphs: number): Script {
  const text = replyParagraphs(paragraphs).join('\n\n');
  const steps: ScriptStep[] = [];
  for (let index = 0; index < text.length; index += DELTA_SIZE)
    steps.push({ type: 'text', text: text.slice(index, index + DELTA_SIZE) });
  steps.push(
    { type: 'usage', inputTokens: 2_000, outputTokens: Math.ceil(text.length / 4) },
    { type: 'finish', reason: 'stop' },
  );
  return { steps, eventDelayMs: 0 };
}

/** Each awaited channel's first write by the bot, timed when the fake receives it. */
function timeFirstWrites(discord: FakeDiscord): void {
  discord.subscribe((event) => {
    if (event.type !== 'request') return;
    const { method, path } = event.entry;
    if (method !== 'POST' && method !== 'PATCH') return;
    const channelId = MESSAGE_WRITE.exec(path)?.[1];
    const resolve = channelId === undefined ? undefined : awaitingWrite.get(channelId);
    if (channelId === undefined || resolve === undefined) return;
    awaitingWrite.delete(channelId);
    resolve(performance.now());
  });
}

async function setup(input: WorldSetup): Promise<WorldInfo> {
  if (input.shards !== undefined && input.seededChannels > 0)
    throw new Error('stored turns are seeded into one guild: not with shards');
  const shards = input.shards ?? 1;
  const discord = await startFakeDiscord({
    rateLimitTimeScale: input.rateLimitTimeScale,
    globalLimitTimeScale: 1,
    globalRequestsPerSecond: input.globalRequestsPerSecond ?? 50,
    recommendedShards: shards,
    maxConcurrency: shards,
  });
  const llm = await LlmStandIn.start({ handler: () => reply });
  timeFirstWrites(discord);
  const guild = discord.createGuild(
    input.shards === undefined ? { name: 'Bench' } : { name: 'Bench 0', onShard: [0, shards] },
  );
  const guildIds = [guild.id];
  for (let shardId = 1; shardId < shards; shardId += 1)
    guildIds.push(discord.createGuild({ name: `Bench ${shardId}`, onShard: [shardId, shards] }).id);
  const channels = Array.from({ length: input.channels }, (_, index): BenchChannel => {
    const guildId = guildIds[index % shards] ?? guild.id;
    const memberIds = Array.from({ length: input.membersPerChannel ?? 1 }, (_, seat) => {
      const member = discord.createUser({ username: `member-${index}-${seat}` });
      discord.addMember({ guildId, userId: member.id });
      return member.id;
    });
    const channel = discord.createChannel({ guildId, name: `bench-${index}` });
    return { channelId: channel.id, memberId: memberIds[0] ?? '', memberIds };
  });
  surroundings = {
    discord,
    llm,
    channels: new Map(channels.map((channel) => [channel.channelId, channel])),
  };

  const database = await openDatabase(
    input.database.kind === 'pglite'
      ? { kind: 'pglite', dataDir: input.database.dataDir, logger: silentLogger }
      : { kind: 'postgres', url: input.database.url, logger: silentLogger },
  );
  let storedTurns: number;
  try {
    await database.migrate();
    storedTurns = await seedStoredTurns(database.db, {
      guildId: guild.id,
      botUserId: discord.botUserId,
      channels: channels.slice(0, input.seededChannels),
      turnsPerChannel: input.turnsPerChannel,
    });
  } finally {
    await database.close();
  }
  return {
    apiUrl: discord.apiUrl,
    token: discord.token,
    botUserId: discord.botUserId,
    openAIBaseUrl: llm.openAIBaseUrl,
    guildId: guild.id,
    channels,
    storedTurns,
  };
}

async function setupBigWorld(input: BigWorldSetup): Promise<WorldInfo> {
  const discord = await startFakeDiscord({
    rateLimitTimeScale: 1,
    globalLimitTimeScale: 1,
    globalRequestsPerSecond: input.globalRequestsPerSecond,
  });
  const llm = await LlmStandIn.start({ handler: () => reply });
  timeFirstWrites(discord);
  bigWorld = buildBigWorld(discord, input);
  const { channels } = bigWorld;
  surroundings = {
    discord,
    llm,
    channels: new Map(channels.map((channel) => [channel.channelId, channel])),
  };
  return {
    apiUrl: discord.apiUrl,
    token: discord.token,
    botUserId: discord.botUserId,
    openAIBaseUrl: llm.openAIBaseUrl,
    guildId: '',
    channels,
    storedTurns: 0,
  };
}

function mention(round: MentionRound): Promise<number[]> {
  return Promise.all(mentionEach(round, FIRST_WRITE_DEADLINE_MS));
}

async function answerRound(
  round: MentionRound & { deadlineMs: number },
): Promise<{ lost: number }> {
  const settled = await Promise.allSettled(mentionEach(round, round.deadlineMs));
  return { lost: settled.filter((outcome) => outcome.status === 'rejected').length };
}

function mentionEach(round: MentionRound, deadlineMs: number): Promise<number>[] {
  const { discord, channels } = ready();
  reply = streamedReply(round.paragraphs);
  roundsMentioned += 1;
  return round.channelIds.map((channelId) => {
    const channel = channels.get(channelId);
    if (channel === undefined) throw new Error(`not a bench channel: ${channelId}`);
    const authorId = channel.memberIds[roundsMentioned % channel.memberIds.length] ?? '';
    let postedAt = 0;
    const firstWrite = new Promise<number>((resolve, reject) => {
      const deadline = setTimeout(() => {
        awaitingWrite.delete(channelId);
        reject(new Error(`no write from the bot in ${channelId}`));
      }, deadlineMs);
      awaitingWrite.set(channelId, (at) => {
        clearTimeout(deadline);
        resolve(at - postedAt);
      });
    });
    discord.postMessage({
      authorId,
      channelId,
      content: `<@${discord.botUserId}> what do you think about the plan?`,
    });
    // postMessage has handed MESSAGE_CREATE to the gateway socket when it returns.
    postedAt = performance.now();
    return firstWrite;
  });
}

function report(input: { channelIds: string[]; paragraphs: number }): RoundReport {
  const { discord } = ready();
  const paragraphs = replyParagraphs(input.paragraphs);
  const writeRequests = discord
    .requests()
    .filter((entry) => entry.method === 'POST' || entry.method === 'PATCH');
  const channelsOf = (entries: typeof writeRequests, route: RegExp): string[] =>
    entries.map((entry) => route.exec(entry.path)?.[1]).filter((id) => id !== undefined);
  const writes = channelsOf(writeRequests, MESSAGE_WRITE);
  const creates = channelsOf(
    writeRequests.filter((entry) => entry.method === 'POST'),
    MESSAGE_CREATE,
  );
  const countIn = (ids: string[], channelId: string): number =>
    ids.filter((id) => id === channelId).length;
  const completeChannels = input.channelIds.filter((channelId) => {
    const shown = discord
      .readChannel(channelId)
      .filter((message) => message.author.id === discord.botUserId)
      .map((message) => message.content)
      .join('\n');
    return paragraphs.every((paragraph) => shown.includes(paragraph));
  }).length;
  const rateLimitedBy: Record<string, number> = {};
  for (const entry of discord.requests({ status: 429 })) {
    const scope = entry.responseHeaders['x-ratelimit-scope'] ?? 'unscoped';
    const key = `${scope}: ${entry.method} ${entry.route.split('/').at(-1) ?? entry.route}`;
    rateLimitedBy[key] = (rateLimitedBy[key] ?? 0) + 1;
  }
  return {
    rateLimited: discord.requests({ status: 429 }).length,
    rateLimitedBy,
    writesPerChannel: input.channelIds.map((channelId) => countIn(writes, channelId)),
    createsPerChannel: input.channelIds.map((channelId) => countIn(creates, channelId)),
    completeChannels,
  };
}

async function close(): Promise<null> {
  if (surroundings !== undefined) {
    await surroundings.discord.close();
    await surroundings.llm.close();
    surroundings = undefined;
  }
  return null;
}

function ready(): Surroundings {
  if (surroundings === undefined) throw new Error('setup has not run');
  return surroundings;
}

const handlers: { [Name in WorldCallName]: (input: WorldCalls[Name]['input']) => unknown } = {
  setup,
  setupBigWorld,
  ambientRound: (round) => {
    if (bigWorld === undefined) throw new Error('setupBigWorld has not run');
    return sendAmbient(ready().discord, bigWorld, round);
  },
  mention,
  answerRound,
  identifies: () =>
    ready()
      .discord.gateway.identifies()
      .map((record) => record.at),
  globalLimitHits: () => ready().discord.globalRateLimitHits(),
  report,
  resetObservations: () => {
    ready().discord.resetObservations();
    return null;
  },
  close,
};

process.on('message', (message: WorldRequest) => {
  const handler = handlers[message.call] as (input: unknown) => unknown;
  void Promise.resolve()
    .then(() => handler(message.input))
    .then(
      (output): WorldReply => ({ id: message.id, ok: true, output }),
      (error: unknown): WorldReply => ({
        id: message.id,
        ok: false,
        error: error instanceof Error ? (error.stack ?? error.message) : String(error),
      }),
    )
    .then((answer) => process.send?.(answer));
});
// The bench went away: take the servers down with it.
process.on('disconnect', () => {
  void close().then(() => process.exit(0));
});
