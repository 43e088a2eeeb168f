/**
 * The bot processes of one `bench/scale.bench.ts` configuration, started the way an operator
 * would start them:
 * - "sharded": one `npm start` (`node dist/main.js`) with `SHARD_COUNT=N`, i.e. discord.js's
 *   ShardingManager and N shard children, one shard each — the one-host deployment of README
 *   "Sharding". The manager only supervises (its CPU is counted with its children's); each
 *   child connects its own shard and hears only its guilds' messages.
 * - "unsharded" (rest-proxy or paced): N separate `node dist/main.js` on the one gateway
 *   connection, each hearing every message; the message claims in PostgreSQL split the work.
 * Either way the bench sees one BenchBot per bot process: its log lines and its /metrics port.
 */
import path from 'node:path';
import { startEntry } from '../../tests/support/start-flags.ts';
import type { BotFleet, FleetProcess, LogRecord } from './bot-fleet.ts';
import { freePort } from './bot-fleet.ts';

export type ScaleMode = 'sharded' | 'proxy' | 'paced';

/** One process that runs the bot (a shard child, or an unsharded process). */
export interface BenchBot {
  records(): LogRecord[];
  metricsPort: number;
}

export interface StartedBots {
  bots: BenchBot[];
  /** The OS processes to read CPU time from (a manager's children are counted with it). */
  processes: FleetProcess[];
}

export async function startBots(options: {
  fleet: BotFleet;
  mode: ScaleMode;
  processes: number;
  /** Everything but the per-process settings: token, URLs, database, keys, REST settings. */
  env: Record<string, string>;
  dataDir: string;
  /** Node flags for every bot process, e.g. `--cpu-prof`. */
  nodeFlags: readonly string[];
}): Promise<StartedBots> {
  const { fleet, mode, processes, env, dataDir, nodeFlags } = options;
  if (mode === 'sharded') {
    const manager = fleet.start({
      name: 'shard-manager',
      script: startEntry(),
      nodeFlags,
      env: {
        ...env,
        SHARD_COUNT: String(processes),
        DATA_DIR: path.join(dataDir, 'manager'),
        // Each child picks a free port and logs it with its `shard`.
        METRICS_PORT: '0',
      },
    });
    const shardIds = Array.from({ length: processes }, (_, shardId) => String(shardId));
    const bots = await Promise.all(
      shardIds.map(async (shard): Promise<BenchBot> => {
        const ofShard = (record: LogRecord): boolean => record['shard'] === shard;
        const [listening] = await Promise.all([
          manager.waitFor(
            (record) =>
              ofShard(record) && record['msg'] === 'metrics listening on /metrics and /healthz',
            `shard ${shard}'s metrics`,
          ),
          manager.waitFor(
            (record) => ofShard(record) && record['msg'] === 'connected to Discord',
            `shard ${shard}'s connection`,
          ),
        ]);
        return {
          records: () => manager.records.filter(ofShard),
          metricsPort: Number(listening['port']),
        };
      }),
    );
    return { bots, processes: [manager] };
  }
  const started: { process: FleetProcess; metricsPort: number }[] = [];
  for (let index = 0; index < processes; index += 1) {
    const metricsPort = await freePort();
    const process = fleet.start({
      name: `bot-${index}`,
      script: startEntry(),
      nodeFlags,
      env: {
        ...env,
        ...(mode === 'paced' ? { BOT_PROCESS_COUNT: String(processes) } : {}),
        DATA_DIR: path.join(dataDir, `bot-${index}`),
        METRICS_PORT: String(metricsPort),
      },
    });
    started.push({ process, metricsPort });
  }
  await Promise.all(
    started.map(({ process }) =>
      process.waitFor((record) => record['msg'] === 'connected to Discord', 'connection'),
    ),
  );
  return {
    bots: started.map(({ process, metricsPort }) => ({
      records: () => process.records,
      metricsPort,
    })),
    processes: started.map(({ process }) => process),
  };
}
