import { createHash } from 'node:crypto';
import type { Client, RESTPostAPIApplicationCommandsJSONBody } from 'discord.js';
import type { Logger } from '../../core/logger.ts';
import { readBotState, writeBotState } from '../../db/bot-state-repository.ts';
import type { Database } from '../../db/database.ts';

export interface CommandRegistrationOptions {
  client: Client<true>;
  db: Database;
  logger: Logger;
  definitions: readonly RESTPostAPIApplicationCommandsJSONBody[];
  /** DEV_GUILD_ID: register to this guild only (instant updates while developing). */
  guildId: string | undefined;
}

export type RegistrationOutcome = 'registered' | 'unchanged';

/** The hash of what we register; any change to a name, text, option or permission changes it. */
export function definitionHash(
  definitions: readonly RESTPostAPIApplicationCommandsJSONBody[],
): string {
  return createHash('sha256').update(JSON.stringify(definitions)).digest('hex');
}

/**
 * Registers the slash commands at start-up only when their definition hash changed since the
 * last registration of this application to this target (a guild or global): restarts and
 * extra processes make no command writes, which Discord rate-limits at 200 creates a day.
 */
export async function registerCommands(
  options: CommandRegistrationOptions,
): Promise<RegistrationOutcome> {
  const { client, db, definitions, guildId } = options;
  const target = guildId === undefined ? 'global' : `guild:${guildId}`;
  const key = `commands:${client.application.id}:${target}`;
  const hash = definitionHash(definitions);
  if ((await readBotState(db, key)) === hash) {
    options.logger.info({ target, outcome: 'unchanged' }, 'slash commands ready');
    return 'unchanged';
  }
  if (guildId === undefined) await client.application.commands.set([...definitions]);
  else await client.application.commands.set([...definitions], guildId);
  await writeBotState(db, key, hash);
  options.logger.info(
    { target, outcome: 'registered', commands: definitions.length },
    'slash commands ready',
  );
  return 'registered';
}
