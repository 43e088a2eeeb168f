import { configCommand } from './config/config-command.ts';
import { helpCommand } from './info/help-command.ts';
import type { SlashCommand } from './slash-command.ts';

/** Every slash command the bot registers, in the order `/help` lists them. */
export function createCommands(): SlashCommand[] {
  const commands: SlashCommand[] = [];
  commands.push(helpCommand(() => commands.map((command) => command.definition)));
  commands.push(configCommand());
  return commands;
}
