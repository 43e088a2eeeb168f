import {
  ApplicationIntegrationType,
  InteractionContextType,
  PermissionFlagsBits,
  SlashCommandBuilder,
  type ChatInputCommandInteraction,
  type SlashCommandSubcommandBuilder,
} from 'discord.js';
import { CHARACTER_LIMITS } from '../../../core/character.ts';
import { findCharacter, listCharacters } from '../../../db/character-repository.ts';
import { addToScene, loadScene, removeFromScene } from '../../../db/scene-repository.ts';
import { CommandRefusal } from '../../i18n/member-text.ts';
import { requirePermission } from '../command-access.ts';
import { deferIfSlow, respond } from '../command-replies.ts';
import type { CommandContext, SlashCommand } from '../slash-command.ts';
import { namedCharacter } from './character-subcommands.ts';
import { sceneText as text } from './scene-texts.ts';

const MAX_CHOICES = 25;

type Handler = (interaction: ChatInputCommandInteraction, context: CommandContext) => Promise<void>;

/**
 * `/scene add | remove | list`: who is on stage in this channel or thread — or in a DM with the
 * bot, among the member's own characters (there they speak through the bot, headed by their
 * name). Anyone may look; bringing characters on or off needs Manage Server, as `/config` does.
 */
export function sceneCommand(): SlashCommand {
  const nameOption = (sub: SlashCommandSubcommandBuilder, autocomplete: boolean) =>
    sub.addStringOption((option) =>
      text.describe(option.setName('name'), 'name').setRequired(true).setAutocomplete(autocomplete),
    );
  const builder = text
    .describe(new SlashCommandBuilder().setName('scene'), 'description')
    .setContexts(InteractionContextType.Guild, InteractionContextType.BotDM)
    .setIntegrationTypes(ApplicationIntegrationType.GuildInstall)
    .addSubcommand((sub) => nameOption(text.describe(sub.setName('add'), 'add.description'), true))
    .addSubcommand((sub) =>
      nameOption(text.describe(sub.setName('remove'), 'remove.description'), true),
    )
    .addSubcommand((sub) => text.describe(sub.setName('list'), 'list.description'));
  const handlers: Readonly<Record<string, Handler>> = { add, remove, list };
  return {
    definition: builder.toJSON(),
    category: 'config',
    async execute(interaction, context) {
      const handler = handlers[interaction.options.getSubcommand()];
      if (handler !== undefined) await handler(interaction, context);
    },
    async autocomplete(interaction, context) {
      const typed = interaction.options.getFocused().toLowerCase();
      const onStage = interaction.options.getSubcommand() === 'remove';
      const characters = onStage
        ? (await context.services.scenes.get(interaction.channelId)).characters
        : await listCharacters(context.services.db, context.scope.id);
      await interaction.respond(
        characters
          .filter((character) => character.name.toLowerCase().includes(typed))
          .slice(0, MAX_CHOICES)
          .map((character) => ({ name: character.name, value: character.name })),
      );
    },
  };
}

const add: Handler = async (interaction, context) => {
  requirePermission(interaction, context, 'ManageGuild');
  const character = await namedCharacter(interaction, context);
  await deferIfSlow(interaction);
  const outcome = await addToScene(context.services.db, {
    channelId: interaction.channelId,
    characterId: character.id,
    limit: CHARACTER_LIMITS.charactersPerScene,
  });
  if (outcome === 'already') {
    throw new CommandRefusal(text.refusal('already', { name: character.name }));
  }
  if (outcome === 'full') {
    throw new CommandRefusal(text.refusal('full', { max: CHARACTER_LIMITS.charactersPerScene }));
  }
  await rememberScene(interaction, context);
  const greeted = await context.services.greet?.({
    channelId: interaction.channelId,
    scopeId: context.scope.id,
    character,
  });
  const lines = [text.get(context.locale, 'added', { name: character.name })];
  const canManage = interaction.appPermissions?.has(PermissionFlagsBits.ManageWebhooks) ?? false;
  // A DM has no webhooks: characters always speak there through the bot, by design.
  if (!canManage && context.scope.kind === 'guild')
    lines.push(text.get(context.locale, 'noWebhooks'));
  if (greeted === 'failed') {
    lines.push(text.get(context.locale, 'greetingFailed', { name: character.name }));
  }
  await respond(interaction, lines.join('\n'));
};

const remove: Handler = async (interaction, context) => {
  requirePermission(interaction, context, 'ManageGuild');
  const name = interaction.options.getString('name', true);
  const character = await findCharacter(context.services.db, context.scope.id, name);
  await deferIfSlow(interaction);
  const removed =
    character !== undefined &&
    (await removeFromScene(context.services.db, {
      channelId: interaction.channelId,
      characterId: character.id,
    }));
  if (!removed) throw new CommandRefusal(text.refusal('absent', { name }));
  await rememberScene(interaction, context);
  await respond(interaction, text.get(context.locale, 'removed', { name: character.name }));
};

const list: Handler = async (interaction, context) => {
  const scene = await context.services.scenes.get(interaction.channelId);
  const names = scene.characters.map((character) => `**${character.name}**`);
  await respond(
    interaction,
    names.length === 0
      ? text.get(context.locale, 'empty')
      : text.get(context.locale, 'list', { names: names.join(' → ') }),
  );
};

/** The stage as just written, kept and announced to the other processes. */
async function rememberScene(
  interaction: ChatInputCommandInteraction,
  context: CommandContext,
): Promise<void> {
  const characters = await loadScene(context.services.db, interaction.channelId);
  context.services.scenes.written({ channelId: interaction.channelId, characters });
}
