import { autoReplyCommand } from './config/autoreply-command.ts';
import { configCommand } from './config/config-command.ts';
import { triggerCommand } from './config/trigger-command.ts';
import { helpCommand } from './info/help-command.ts';
import type { SlashCommand } from './slash-command.ts';

/** Every slash command the bot registers, in the order `/help` lists them. */
export function createCommands(): SlashCommand[] {
  const commands: SlashCommand[] = [];
  commands.push(helpCommand(() => commands.map((command) => command.definition)));
  commands.push(configCommand());
  commands.push(triggerCommand());
  commands.push(autoReplyCommand());
  return commands;
}
