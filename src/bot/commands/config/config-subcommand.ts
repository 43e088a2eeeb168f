import type {
  AutocompleteInteraction,
  ChatInputCommandInteraction,
  MessageComponentInteraction,
  ModalSubmitInteraction,
  SlashCommandSubcommandsOnlyBuilder,
} from 'discord.js';
import type { CommandContext } from '../slash-command.ts';

/**
 * One `/config` subcommand, or subcommand group: how it is defined and handled. `/config`
 * routes by name; a modal or button it shows has the custom id `config:<name>`.
 */
export interface ConfigSubcommand {
  /** The subcommand or group name. */
  readonly name: string;
  /** Adds the subcommand (or group), described in en and ja, to the `/config` builder. */
  define(builder: SlashCommandSubcommandsOnlyBuilder): void;
  execute(interaction: ChatInputCommandInteraction, context: CommandContext): Promise<void>;
  autocomplete?(interaction: AutocompleteInteraction, context: CommandContext): Promise<void>;
  submitModal?(interaction: ModalSubmitInteraction, context: CommandContext): Promise<void>;
  handleComponent?(
    interaction: MessageComponentInteraction,
    context: CommandContext,
  ): Promise<void>;
}

/** The custom id of a modal or button a `/config` subcommand shows. */
export function configCustomId(subcommand: string): string {
  return `config:${subcommand}`;
}
