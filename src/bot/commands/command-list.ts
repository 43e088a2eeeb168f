import { characterCommand } from './cast/character-command.ts';
import { sceneCommand } from './cast/scene-command.ts';
import { autoReplyCommand } from './config/autoreply-command.ts';
import { configCommand } from './config/config-command.ts';
import { triggerCommand } from './config/trigger-command.ts';
import { exportCommand } from './conversation/export-command.ts';
import { historyCommand } from './conversation/history-command.ts';
import { memoryCommand } from './conversation/memory-command.ts';
import { pinsCommand } from './conversation/pins-command.ts';
import { resetCommand } from './conversation/reset-command.ts';
import { stopCommand } from './conversation/stop-command.ts';
import { doctorCommand } from './diagnostics/doctor-command.ts';
import { helpCommand } from './info/help-command.ts';
import type { SlashCommand } from './slash-command.ts';
import { usageCommand } from './usage/usage-command.ts';
import { voiceCommand } from './voice/voice-command.ts';

/** Every slash command the bot registers, in the order `/help` lists them. */
export function createCommands(): SlashCommand[] {
  const commands: SlashCommand[] = [];
  commands.push(helpCommand(() => commands.map((command) => command.definition)));
  commands.push(configCommand());
  commands.push(triggerCommand());
  commands.push(autoReplyCommand());
  commands.push(characterCommand());
  commands.push(sceneCommand());
  commands.push(resetCommand());
  commands.push(stopCommand());
  commands.push(voiceCommand());
  commands.push(historyCommand());
  commands.push(exportCommand());
  commands.push(memoryCommand());
  commands.push(pinsCommand());
  commands.push(usageCommand());
  commands.push(doctorCommand());
  return commands;
}
