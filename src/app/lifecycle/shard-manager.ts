/**
 * `npm start` with SHARD_COUNT: this process runs no bot and opens no database. It runs
 * discord.js's ShardingManager (src/bot/sharding/shard-launcher.ts), which starts one child
 * process per SHARDS_PER_PROCESS shards, each running the bot's entrypoint for its shards.
 * The composition root (src/main.ts) hands over its entrypoint and Node flags and installs
 * the signal handling that stops the children.
 */
import type { Config } from '../config/config.ts';
import { systemClock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import type { ProcessExit } from './process-exit.ts';
import { describeStartupFailure } from './startup-failure.ts';

export interface RunningShardManager {
  /** SIGTERM to every child (each finishes live replies within its grace), then waits. */
  stop(): Promise<void>;
}

/** Starts the children; on a failure (Discord unreachable, a bad SHARD_IDS) exits the process. */
export async function runShardManager(options: {
  config: Config;
  logger: Logger;
  exit: ProcessExit;
  /** The bot's entrypoint, run by every child. */
  entrypoint: string;
  execArgv: readonly string[];
}): Promise<RunningShardManager | undefined> {
  const { config, logger, exit } = options;
  if (config.sharding.role !== 'manager') return undefined;
  try {
    const { launchShards } = await import('../../bot/sharding/shard-launcher.ts');
    return await launchShards({
      entrypoint: options.entrypoint,
      execArgv: options.execArgv,
      token: config.discordToken,
      apiUrl: config.discordApiUrl,
      shardCount: config.sharding.shardCount,
      shardIds: config.sharding.shardIds,
      shardsPerProcess: config.sharding.shardsPerProcess,
      metricsPort: config.metricsPort,
      shutdownGraceMs: config.shutdownGraceMs,
      logger,
      clock: systemClock,
    });
  } catch (error) {
    const failure = describeStartupFailure(error, config);
    exit.fail(failure.message, failure.showStack ? { err: error } : {});
    return undefined;
  }
}
