import type { ChildProcess } from 'node:child_process';
import { REST, Routes, ShardingManager, type Shard } from 'discord.js';
import type { RESTGetAPIGatewayBotResult } from 'discord-api-types/v10';
import type { Clock } from '../../core/clock.ts';
import { ConfigError } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';
import { IdentifyGate } from './identify-gate.ts';
import { RestartBackoff } from './restart-backoff.ts';
import {
  botProcessCount,
  identifyKey,
  planShardProcesses,
  shardLabel,
  type ShardProcessPlan,
} from './shard-plan.ts';

/** A started process whose shards are not all ready by then frees its IDENTIFY keys anyway. */
const READY_DEADLINE_MS = 120_000;
/** After SHUTDOWN_GRACE_MS, how long a child may still take to close before SIGKILL. */
const EXIT_MARGIN_MS = 15_000;

export interface ShardLauncherOptions {
  /** The bot's entrypoint each child runs (src/main.ts). */
  entrypoint: string;
  /** Node flags for the children (the manager's own: type stripping, heap, runtime check). */
  execArgv: readonly string[];
  token: string;
  apiUrl: string;
  shardCount: number | 'auto';
  shardIds: readonly number[] | undefined;
  shardsPerProcess: number;
  /** Child `i` of this host serves metrics on `metricsPort + i` (0: each picks a free port). */
  metricsPort: number | undefined;
  shutdownGraceMs: number;
  logger: Logger;
  clock: Clock;
}

export interface ShardLauncher {
  readonly shardCount: number;
  readonly processes: readonly ShardProcessPlan[];
  /** SIGTERM to every child (each finishes live replies within its grace), then waits. */
  stop(): Promise<void>;
}

/**
 * `npm start` with SHARD_COUNT: discord.js's ShardingManager forks one child per
 * SHARDS_PER_PROCESS shards of SHARD_IDS, each running the normal bot (src/main.ts) for its
 * shards. The manager runs no bot and opens no database. Its own parts on top of discord.js:
 * children start in IDENTIFY order (`IdentifyGate`, by max_concurrency key), a dead child is
 * restarted with exponential backoff (discord.js's respawn is immediate and is turned off), and
 * each child learns its place (SHARD_PROCESS_INDEX / SHARD_PROCESS_COUNT, METRICS_PORT + index).
 */
export async function launchShards(options: ShardLauncherOptions): Promise<ShardLauncher> {
  const { logger, clock } = options;
  const gateway = (await new REST({ api: options.apiUrl })
    .setToken(options.token)
    .get(Routes.gatewayBot())) as RESTGetAPIGatewayBotResult;
  const shardCount = options.shardCount === 'auto' ? gateway.shards : options.shardCount;
  const maxConcurrency = gateway.session_start_limit.max_concurrency;
  const outside = (options.shardIds ?? []).filter((shardId) => shardId >= shardCount);
  if (outside.length > 0) {
    throw new ConfigError([
      `SHARD_IDS names shard ${outside.join(', ')}, but Discord recommends ${shardCount} shards (SHARD_COUNT=auto)`,
    ]);
  }
  const plans = planShardProcesses({ ...options, shardCount });
  const processCount = botProcessCount(shardCount, options.shardsPerProcess);
  const manager = new ShardingManager(options.entrypoint, {
    totalShards: shardCount,
    shardList: plans.map((plan) => plan.shardIds[0] ?? 0),
    mode: 'process',
    respawn: false,
    execArgv: [...options.execArgv],
    token: options.token,
  });
  const gate = new IdentifyGate({ clock });
  const stopping = new AbortController();
  const children = plans.map((plan) => {
    const shard = manager.createShard(plan.shardIds[0] ?? 0);
    Object.assign(shard.env as Record<string, string>, {
      SHARDS: JSON.stringify(plan.shardIds),
      SHARD_PROCESS_INDEX: String(plan.index),
      SHARD_PROCESS_COUNT: String(processCount),
      ...(options.metricsPort === undefined
        ? {}
        : {
            METRICS_PORT: String(options.metricsPort === 0 ? 0 : options.metricsPort + plan.index),
          }),
    });
    return new ShardChild({
      plan,
      shard,
      gate,
      maxConcurrency,
      stopping: stopping.signal,
      logger,
      clock,
    });
  });
  logger.info(
    { shardCount, maxConcurrency, processes: plans.map((plan) => shardLabel(plan.shardIds)) },
    'starting shard processes',
  );
  for (const child of children) child.start();
  return {
    shardCount,
    processes: plans,
    stop: async () => {
      stopping.abort();
      const deadlineMs = options.shutdownGraceMs + EXIT_MARGIN_MS;
      await Promise.all(children.map((child) => child.stop(deadlineMs)));
    },
  };
}

/** One child process of the manager: its starts, readiness, deaths and restarts. */
class ShardChild {
  readonly #plan: ShardProcessPlan;
  readonly #shard: Shard;
  readonly #gate: IdentifyGate;
  readonly #keys: number[];
  readonly #stopping: AbortSignal;
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #backoff = new RestartBackoff();
  #readyShards = 0;
  #startedAt = 0;
  #readyDeadline: NodeJS.Timeout | undefined;
  #exited: (() => void) | undefined;

  constructor(options: {
    plan: ShardProcessPlan;
    shard: Shard;
    gate: IdentifyGate;
    maxConcurrency: number;
    stopping: AbortSignal;
    logger: Logger;
    clock: Clock;
  }) {
    this.#plan = options.plan;
    this.#shard = options.shard;
    this.#gate = options.gate;
    this.#keys = [
      ...new Set(options.plan.shardIds.map((id) => identifyKey(id, options.maxConcurrency))),
    ];
    this.#stopping = options.stopping;
    this.#clock = options.clock;
    this.#logger = options.logger.child({ shards: shardLabel(options.plan.shardIds) });
    this.#shard.on('ready', () => this.#shardReady());
    this.#shard.on('death', (child) => this.#died(child as ChildProcess));
    this.#shard.on('error', (error) => this.#logger.warn({ err: error }, 'shard process error'));
  }

  start(): void {
    void this.#startWhenFree().catch((error: unknown) => {
      if (!this.#stopping.aborted)
        this.#logger.error({ err: error }, 'could not start a shard process');
    });
  }

  async stop(deadlineMs: number): Promise<void> {
    const child = this.#shard.process;
    if (child === null || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => {
      this.#exited = resolve;
    });
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), deadlineMs);
    await exited;
    clearTimeout(timer);
  }

  async #startWhenFree(): Promise<void> {
    await this.#gate.acquire({
      keys: this.#keys,
      holder: this.#plan.index,
      signal: this.#stopping,
    });
    this.#readyShards = 0;
    this.#startedAt = this.#clock.now();
    this.#readyDeadline = setTimeout(() => this.#gate.release(this.#plan.index), READY_DEADLINE_MS);
    const child = await this.#shard.spawn(-1);
    this.#logger.info({ pid: child.pid }, 'shard process started');
  }

  #shardReady(): void {
    this.#readyShards += 1;
    if (this.#readyShards !== this.#plan.shardIds.length) return;
    clearTimeout(this.#readyDeadline);
    this.#gate.release(this.#plan.index);
    this.#logger.info({ startupMs: this.#clock.now() - this.#startedAt }, 'shard process ready');
  }

  #died(child: ChildProcess): void {
    clearTimeout(this.#readyDeadline);
    this.#gate.release(this.#plan.index);
    const exit = { code: child.exitCode, signal: child.signalCode };
    if (this.#stopping.aborted) {
      this.#logger.info(exit, 'shard process stopped');
      this.#exited?.();
      return;
    }
    const restartInMs = this.#backoff.next(this.#clock.now() - this.#startedAt);
    this.#logger.warn({ ...exit, restartInMs }, 'shard process died; restarting it');
    void this.#clock
      .sleep(restartInMs, this.#stopping)
      .then(() => this.start())
      .catch(() => undefined);
  }
}
