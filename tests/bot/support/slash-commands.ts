import type { APIApplicationCommand } from 'discord-api-types/v10';
import type { FakeDiscord } from '../../fake-discord/fake-discord.ts';
import type { BotProcess } from '../../support/scenario-runner.ts';

/**
 * Resolves once the bot has made its slash commands ready (registered them, or found them
 * unchanged) — its log says so — registration is the last thing the bot does on that path, so an
 * interaction sent after this finds the router ready.
 */
export async function commandsRegistered(
  discord: FakeDiscord,
  bot: BotProcess,
  guildId?: string,
): Promise<{ outcome: unknown; commands: APIApplicationCommand[] }> {
  const line = await bot.waitForLog((entry) => entry.json?.['msg'] === 'slash commands ready', {
    timeoutMs: 15_000,
  });
  return { outcome: line.json?.['outcome'], commands: discord.commands(guildId) };
}
