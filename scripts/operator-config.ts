import {
  parseConfig,
  processEnvironment,
  secretValues,
  type Config,
} from '../src/app/config/config.ts';
import { ConfigError } from '../src/core/errors.ts';
import type { Logger } from '../src/core/logger.ts';
import type { BackupTarget } from '../src/db/backup/backup.ts';
import { createLogger } from '../src/app/logging/logger.ts';

/**
 * The bot's own configuration (environment over `.env`, parsed by config.ts) for the operator
 * scripts. They never talk to Discord, so a missing DISCORD_TOKEN is not their problem.
 */
export function operatorSetup(): { config: Config; target: BackupTarget; logger: Logger } {
  let config: Config;
  try {
    const environment = processEnvironment();
    config = parseConfig({ DISCORD_TOKEN: 'not-needed-here', ...environment });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    for (const problem of error.problems) process.stderr.write(`Configuration error: ${problem}\n`);
    process.exit(1);
  }
  const logger = createLogger({
    level: 'warn',
    secrets: secretValues(config),
    pretty: process.stderr.isTTY === true,
  });
  const target: BackupTarget =
    config.databaseUrl === undefined
      ? { kind: 'pglite', dataDir: `${config.dataDir}/pglite` }
      : { kind: 'postgres', url: config.databaseUrl };
  return { config, target, logger };
}

/** Prints the failure in one line (no stack) and exits 1. */
export function fail(error: unknown): never {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`Failed: ${message}\n`);
  process.exit(1);
}
