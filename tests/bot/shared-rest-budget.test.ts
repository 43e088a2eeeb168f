/**
 * The REST side of several processes: a bot process and a second process's REST traffic share one
 * token, so Discord's global limit (50 requests/s, kept at real time here while route buckets run
 * 20× faster) is shared. The bot streams a three-paragraph reply into 120 channels at once while a
 * second process (tests/bot/support/rest-load-process.ts: the bot's own discord.js REST stack, as
 * another shard process would run it) posts into 120 channels of its own. Through the shared REST
 * proxy, or with each process pacing at 40 / 2 per second, the loopback Discord answers no global
 * 429; the control, both at the single-process 40/s, shows the test can fail.
 *
 * Why not two bot processes: on one gateway without sharding, the first process to claim a
 * message answers it, so the second one stands by (turns split 120/0 in a trial run) and never
 * adds load. Once the gateway routes guilds to shards, two bot processes replace the load.
 */
import { fork } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processRequestsPerSecond } from '../../src/bot/rest/global-request-pacer.ts';
import { startRestProxy, type RunningRestProxy } from '../../src/bot/rest/rest-proxy-server.ts';
import { systemClock } from '../../src/core/clock.ts';
import { silentLogger, type Logger } from '../../src/core/logger.ts';
import { startFakeDiscord, type FakeDiscord } from '../fake-discord/fake-discord.ts';
import { LlmStandIn } from '../support/llm-stand-in/llm-stand-in.ts';
import { startBot, type BotProcess } from '../support/scenario-runner.ts';
import type { Script, ScriptStep } from '../support/llm-stand-in/script.ts';
import { botMessagesIn, TEST_API_KEY, TEST_MODEL, waitForTurn } from './support/bot-harness.ts';
import type { RestLoad, RestLoadResult } from './support/rest-load-process.ts';
import { commandsRegistered } from './support/slash-commands.ts';

const REST_LOAD_ENTRY = path.resolve(import.meta.dirname, 'support/rest-load-process.ts');

const CHANNELS = 120;
const SECOND_PROCESS_MESSAGES_PER_CHANNEL = 3;
const PARAGRAPHS = [
  'First paragraph of a short answer, long enough to be its own message.',
  'Second paragraph, which the bot sends once the first one is complete.',
  'Third and last paragraph; then the turn is finished.',
];

function streamedReply(): Script {
  const reply = PARAGRAPHS.join('\n\n');
  const steps: ScriptStep[] = [];
  for (let index = 0; index < reply.length; index += 40) {
    steps.push({ type: 'text', text: reply.slice(index, index + 40) });
  }
  steps.push(
    { type: 'usage', inputTokens: 50, outputTokens: 60 },
    { type: 'finish', reason: 'stop' },
  );
  return { steps, eventDelayMs: 2 };
}

function buildWorld(discord: FakeDiscord) {
  const guild = discord.createGuild({ name: 'busy' });
  const channels = (prefix: string) =>
    Array.from({ length: CHANNELS }, (_unused, index) => {
      const channel = discord.createChannel({ guildId: guild.id, name: `${prefix}${index}` });
      // One member per channel: the per-member chat limit is not what this test measures.
      const member = discord.createUser({ username: `${prefix}member${index}` });
      discord.addMember({ guildId: guild.id, userId: member.id });
      return { channelId: channel.id, memberId: member.id };
    });
  return { bot: channels('bot'), second: channels('second') };
}

interface Outcome {
  globalLimitHits: number;
  incompleteChannels: number;
  duplicateReplies: number;
  secondProcessFailures: number;
  requests: number;
  wallMs: number;
}

describe(`one token, ${CHANNELS} channels streaming while a second process posts`, () => {
  let discord: FakeDiscord;
  let llm: LlmStandIn;
  let proxy: RunningRestProxy;
  /** Every route the proxy forwarded (its debug log). */
  const proxiedRoutes: string[] = [];
  const recordingLogger: Logger = {
    ...silentLogger,
    debug: (...parts: unknown[]) => {
      const [fields, message] = parts as [{ route?: string }, string | undefined];
      if (message === 'proxied' && typeof fields.route === 'string')
        proxiedRoutes.push(fields.route);
    },
    child: () => recordingLogger,
  };
  beforeAll(async () => {
    discord = await startFakeDiscord({
      rateLimitTimeScale: 0.05,
      globalLimitTimeScale: 1,
      waitTimeoutMs: 120_000,
    });
    llm = await LlmStandIn.start();
    llm.handle(() => streamedReply());
    proxy = await startRestProxy({
      upstreamUrl: discord.apiUrl,
      host: '127.0.0.1',
      port: 0,
      logger: recordingLogger,
      clock: systemClock,
    });
  });
  afterAll(async () => {
    await proxy?.close();
    await llm?.close();
    await discord?.close();
  });

  /**
   * Starts a bot with `env` in a fresh world, then it streams into its channels while the
   * second process posts into its own, all at once.
   */
  async function streamEverywhere(options: {
    env: Record<string, string>;
    restProxyUrl?: string;
    secondProcessPerSecond: number | undefined;
    /** Runs with the bot still up, after the streams. */
    afterStreams?: (bot: BotProcess, world: ReturnType<typeof buildWorld>) => Promise<void>;
  }): Promise<Outcome> {
    const world = buildWorld(discord);
    const bot = startBot({
      discord,
      logLevel: 'info',
      env: {
        OPENAI_BASE_URL: llm.openAIBaseUrl,
        OPENAI_API_KEY: TEST_API_KEY,
        DEFAULT_PROVIDER: 'openai',
        DEFAULT_MODEL: TEST_MODEL,
        ...options.env,
      },
    });
    const second = fork(REST_LOAD_ENTRY, [], {
      execArgv: [],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    try {
      await bot.waitUntilConnected();
      discord.resetObservations();
      const startedAt = Date.now();
      const triggers = world.bot.map(({ channelId, memberId }) =>
        discord.postMessage({
          authorId: memberId,
          channelId,
          content: `<@${discord.botUserId}> tell me something`,
        }),
      );
      const posted = new Promise<RestLoadResult>((resolve, reject) => {
        second.once('message', (result: RestLoadResult) => resolve(result));
        second.once('exit', (code) => reject(new Error(`the second process exited (${code})`)));
      });
      const load: RestLoad = {
        apiUrl: discord.apiUrl,
        token: discord.token,
        ...(options.restProxyUrl === undefined ? {} : { restProxyUrl: options.restProxyUrl }),
        ...(options.secondProcessPerSecond === undefined
          ? {}
          : { requestsPerSecond: options.secondProcessPerSecond }),
        channelIds: world.second.map(({ channelId }) => channelId),
        messagesPerChannel: SECOND_PROCESS_MESSAGES_PER_CHANNEL,
      };
      second.send(load);
      const [secondResult] = await Promise.all([
        posted,
        Promise.all(triggers.map((trigger) => waitForTurn(bot, trigger.id, 180_000))),
      ]);
      const replies = world.bot.map(({ channelId }) => botMessagesIn(discord, channelId));
      const outcome = {
        globalLimitHits: discord.globalRateLimitHits(),
        incompleteChannels: replies.filter((messages) => {
          const shown = messages.map((message) => message.content).join('\n');
          return !PARAGRAPHS.every((paragraph) => shown.includes(paragraph));
        }).length,
        duplicateReplies: replies.filter((messages) => messages.length > PARAGRAPHS.length).length,
        secondProcessFailures: secondResult.failures,
        requests: discord.requests().length,
        wallMs: Date.now() - startedAt,
      };
      await options.afterStreams?.(bot, world);
      return outcome;
    } finally {
      if (second.exitCode === null && second.signalCode === null) second.kill('SIGKILL');
      await bot.dispose();
    }
  }

  const clean = {
    globalLimitHits: 0,
    incompleteChannels: 0,
    duplicateReplies: 0,
    secondProcessFailures: 0,
  };

  it('answers no global 429 when both processes send REST through the shared proxy, and interaction answers skip it', async () => {
    let helpAnswered = false;
    const outcome = await streamEverywhere({
      env: { DISCORD_REST_PROXY: proxy.apiUrl },
      restProxyUrl: proxy.apiUrl,
      secondProcessPerSecond: undefined,
      afterStreams: async (bot, world) => {
        await commandsRegistered(discord, bot);
        const help = discord.invokeSlashCommand({
          userId: world.bot[0]?.memberId ?? '',
          channelId: world.bot[0]?.channelId ?? '',
          command: 'help',
        });
        await help.waitForOriginal();
        helpAnswered = true;
      },
    });
    console.log(`through the REST proxy: ${JSON.stringify(outcome)}`);
    expect(outcome).toMatchObject(clean);
    expect(helpAnswered).toBe(true);
    expect(proxiedRoutes.filter((route) => route.startsWith('/channels/')).length).toBeGreaterThan(
      CHANNELS,
    );
    expect(proxiedRoutes.filter((route) => /^\/(interactions|webhooks)\//.test(route))).toEqual([]);
  });

  it('answers no global 429 when each process paces at 40 / 2 per second', async () => {
    const outcome = await streamEverywhere({
      env: { BOT_PROCESS_COUNT: '2' },
      secondProcessPerSecond: processRequestsPerSecond(2),
    });
    console.log(`each process at 40 / 2 per second: ${JSON.stringify(outcome)}`);
    expect(outcome).toMatchObject(clean);
  });

  it('control: both processes at the single-process 40/s earn global 429s', async () => {
    const outcome = await streamEverywhere({
      env: { BOT_PROCESS_COUNT: '1' },
      secondProcessPerSecond: processRequestsPerSecond(1),
    });
    console.log(`control, each process at 40/s: ${JSON.stringify(outcome)}`);
    expect(outcome.globalLimitHits).toBeGreaterThan(0);
    expect(outcome.incompleteChannels).toBe(0);
  });
});
