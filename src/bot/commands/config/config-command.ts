import {
  ApplicationIntegrationType,
  InteractionContextType,
  SlashCommandBuilder,
} from 'discord.js';
import { permissionBit } from '../command-access.ts';
import { commandText } from '../command-text.ts';
import type { SlashCommand } from '../slash-command.ts';
import { apiKeySubcommand } from './apikey-subcommand.ts';
import type { ConfigSubcommand } from './config-subcommand.ts';
import { budgetSubcommand, queueSubcommand, rateLimitSubcommand } from './limit-subcommands.ts';
import { modelSubcommand } from './model-subcommand.ts';
import { personaSubcommand } from './persona-subcommand.ts';
import { providerSubcommand } from './provider-subcommand.ts';
import { answerBotsSubcommand, userMentionsSubcommand } from './reply-switch-subcommands.ts';
import { resetSubcommand } from './reset-subcommand.ts';
import { showSubcommand } from './show-subcommand.ts';
import {
  deliverySubcommand,
  humanizerSubcommand,
  languageSubcommand,
  temperatureSubcommand,
} from './style-subcommands.ts';
import { timezoneSubcommand } from './timezone-subcommand.ts';
import { toolsSubcommand } from './tools-subcommand.ts';
import { voiceSubcommand } from './voice-subcommand.ts';

const text = commandText({
  en: { description: 'Set me up here: provider, model, key, persona, limits, tools' },
  ja: { description: 'ここでの設定：プロバイダー、モデル、キー、ペルソナ、制限、ツール' },
});

/**
 * `/config`: Manage Server in a guild (hidden from others by default, and checked again at run
 * time by the router and by every modal and button); in DMs each user configures their own DM
 * scope. Subcommands live in their own files; this assembles and routes them.
 */
export function configCommand(): SlashCommand {
  const subcommands: readonly ConfigSubcommand[] = [
    showSubcommand,
    providerSubcommand,
    modelSubcommand(),
    apiKeySubcommand,
    personaSubcommand,
    humanizerSubcommand,
    temperatureSubcommand,
    languageSubcommand,
    timezoneSubcommand,
    deliverySubcommand,
    queueSubcommand,
    rateLimitSubcommand,
    budgetSubcommand,
    toolsSubcommand,
    answerBotsSubcommand,
    userMentionsSubcommand,
    voiceSubcommand,
    resetSubcommand,
  ];
  const builder = text
    .describe(new SlashCommandBuilder().setName('config'), 'description')
    .setDefaultMemberPermissions(permissionBit('ManageGuild'))
    .setContexts(InteractionContextType.Guild, InteractionContextType.BotDM)
    .setIntegrationTypes(ApplicationIntegrationType.GuildInstall);
  for (const subcommand of subcommands) subcommand.define(builder);
  const byName = new Map(subcommands.map((subcommand) => [subcommand.name, subcommand]));
  const find = (name: string): ConfigSubcommand => {
    const found = byName.get(name);
    if (found === undefined) throw new Error(`/config has no subcommand "${name}"`);
    return found;
  };
  /** `config:<subcommand>` → the subcommand. */
  const owner = (customId: string): ConfigSubcommand => find(customId.split(':')[1] ?? '');
  return {
    definition: builder.toJSON(),
    category: 'config',
    execute: (interaction, context) =>
      find(
        interaction.options.getSubcommandGroup(false) ?? interaction.options.getSubcommand(),
      ).execute(interaction, context),
    async autocomplete(interaction, context) {
      const subcommand = find(
        interaction.options.getSubcommandGroup(false) ?? interaction.options.getSubcommand(),
      );
      if (subcommand.autocomplete === undefined) await interaction.respond([]);
      else await subcommand.autocomplete(interaction, context);
    },
    submitModal: async (interaction, context) =>
      owner(interaction.customId).submitModal?.(interaction, context),
    handleComponent: async (interaction, context) =>
      owner(interaction.customId).handleComponent?.(interaction, context),
  };
}
