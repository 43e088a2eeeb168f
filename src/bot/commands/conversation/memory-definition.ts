import {
  InteractionContextType,
  SlashCommandBuilder,
  type RESTPostAPIChatInputApplicationCommandsJSONBody,
  type SlashCommandStringOption,
} from 'discord.js';
import { memoryText as text } from './memory-texts.ts';

/**
 * `/memory list|add|forget`, each with an optional `scope` (server | personal), and `/memory
 * summary` (the channel's rolling summary).
 */
export function memoryDefinition(
  maxFactChars: number,
): RESTPostAPIChatInputApplicationCommandsJSONBody {
  const scopeOption = (option: SlashCommandStringOption) =>
    text
      .describe(option.setName('scope'), 'scope')
      .addChoices(text.choice('server', 'server'), text.choice('personal', 'personal'));
  const builder = new SlashCommandBuilder()
    .setName('memory')
    .setContexts(InteractionContextType.Guild, InteractionContextType.BotDM)
    .addSubcommand((list) =>
      text.describe(list.setName('list'), 'list').addStringOption(scopeOption),
    )
    .addSubcommand((add) =>
      text
        .describe(add.setName('add'), 'add')
        .addStringOption((fact) =>
          text.describe(
            fact.setName('fact').setRequired(true).setMinLength(1).setMaxLength(maxFactChars),
            'fact',
          ),
        )
        .addStringOption(scopeOption),
    )
    .addSubcommand((forget) =>
      text
        .describe(forget.setName('forget'), 'forget')
        .addStringOption((memory) =>
          text.describe(memory.setName('memory').setRequired(true).setAutocomplete(true), 'memory'),
        )
        .addStringOption(scopeOption),
    )
    .addSubcommand((summary) => text.describe(summary.setName('summary'), 'summary'));
  return text.describe(builder, 'description').toJSON();
}
