import type { Download } from '../../context/trigger-attachments.ts';
import { listCharacters } from '../../../db/character-repository.ts';
import type { SlashCommand } from '../slash-command.ts';
import { cardSubcommands } from './character-card-subcommands.ts';
import { characterDefinition } from './character-definition.ts';
import { CHARACTER_SUBCOMMANDS } from './character-subcommands.ts';

const MAX_CHOICES = 25;

/**
 * `/character`: the server's characters — or, in a DM, the member's own private ones. Anyone
 * may list, show and export them; create, edit, remove and import need Manage Server, as
 * `/config` does (in a DM the member administers their own scope).
 */
export function characterCommand(options: { download?: Download } = {}): SlashCommand {
  const subcommands = { ...CHARACTER_SUBCOMMANDS, ...cardSubcommands(options.download) };
  return {
    definition: characterDefinition(),
    category: 'config',
    async execute(interaction, context) {
      const handler = subcommands[interaction.options.getSubcommand()];
      if (handler !== undefined) await handler(interaction, context);
    },
    async autocomplete(interaction, context) {
      const typed = interaction.options.getFocused().toLowerCase();
      const characters = await listCharacters(context.services.db, context.scope.id);
      await interaction.respond(
        characters
          .filter((character) => character.name.toLowerCase().includes(typed))
          .slice(0, MAX_CHOICES)
          .map((character) => ({ name: character.name, value: character.name })),
      );
    },
  };
}
