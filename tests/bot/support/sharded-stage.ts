/**
 * The stage of the sharded end-to-end files: the loopback Discord (4 shards recommended,
 * max_concurrency 2, fast heartbeats), the LLM stand-in, a fresh PostgreSQL database of the
 * TEST_DATABASE_URL server and a guild per shard; managers started on it.
 */
import { startFakeDiscord, type FakeDiscord } from '../../fake-discord/fake-discord.ts';
import {
  createServerDatabase,
  testServerUrl,
  type BotDatabase,
} from '../../support/bot-database.ts';
import { LlmStandIn } from '../../support/llm-stand-in/llm-stand-in.ts';
import type { ProcessOutput } from '../../support/process-output.ts';
import { startBot, type BotProcess, type LogLine } from '../../support/scenario-runner.ts';
import { TEST_API_KEY, TEST_MODEL } from './bot-harness.ts';
import { buildShardedWorld, type ShardedWorld } from './sharded-bot.ts';

export const SHARD_COUNT = 4;
export const MAX_CONCURRENCY = 2;

export interface Stage {
  discord: FakeDiscord;
  llm: LlmStandIn;
  database: BotDatabase;
  world: ShardedWorld;
}

/**
 * `globalLimitTimeScale: 1` keeps Discord's global 50 requests/s at real time (route buckets
 * stay 10× faster), for a test of the global budget.
 */
export async function startStage(options: { globalLimitTimeScale?: number } = {}): Promise<Stage> {
  const discord = await startFakeDiscord({
    rateLimitTimeScale: 0.1,
    ...options,
    waitTimeoutMs: 120_000,
    recommendedShards: SHARD_COUNT,
    maxConcurrency: MAX_CONCURRENCY,
    // Heartbeats every 2 s, so /healthz has a latency to report soon.
    heartbeatIntervalMs: 2_000,
  });
  const llm = await LlmStandIn.start();
  const database = await createServerDatabase(testServerUrl() ?? '');
  return { discord, llm, database, world: buildShardedWorld(discord, SHARD_COUNT) };
}

export async function endStage(
  stage: Stage | undefined,
  bots: readonly BotProcess[],
): Promise<void> {
  for (const bot of bots) await bot.dispose();
  await stage?.llm.close();
  await stage?.discord.close();
  await stage?.database.dispose();
}

export function managerEnvironment(stage: Stage): Record<string, string> {
  return {
    ...stage.database.environment,
    OPENAI_BASE_URL: stage.llm.openAIBaseUrl,
    OPENAI_API_KEY: TEST_API_KEY,
    DEFAULT_PROVIDER: 'openai',
    DEFAULT_MODEL: TEST_MODEL,
    SHUTDOWN_GRACE_MS: '5000',
  };
}

export function startManager(stage: Stage, env: Record<string, string>): BotProcess {
  return startBot({
    discord: stage.discord,
    logLevel: 'info',
    env: { ...managerEnvironment(stage), ...env },
  });
}

/** Resolves with the first `count` lines whose msg is `message` (a ceiling, not a sleep). */
export function linesOf(output: ProcessOutput, message: string, count: number): Promise<LogLine[]> {
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
export async function until<T>(
  probe: () => Promise<T | undefined>,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`no answer within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
