import { EmbedBuilder, type ChatInputCommandInteraction } from 'discord.js';
import { CHARACTER_LIMITS, type Character } from '../../../core/character.ts';
import {
  createCharacter,
  findCharacter,
  listCharacters,
  removeCharacter,
  updateCharacter,
  type SaveCharacterResult,
} from '../../../db/character-repository.ts';
import type { Locale } from '../../i18n/locale.ts';
import { CommandRefusal } from '../../i18n/member-text.ts';
import { requirePermission } from '../command-access.ts';
import { deferIfSlow, respond } from '../command-replies.ts';
import type { CommandContext } from '../slash-command.ts';
import { BLANK_CHARACTER, checkCharacterFields, fieldsFromOptions } from './character-options.ts';
import { characterText as text } from './character-texts.ts';

/** Discord's limits for an embed's description and a field's value. */
const DESCRIPTION_LIMIT = 4_096;
const FIELD_LIMIT = 1_024;

type Handler = (interaction: ChatInputCommandInteraction, context: CommandContext) => Promise<void>;

/** The character in this server named by the `name` option, or a refusal naming it. */
export async function namedCharacter(
  interaction: ChatInputCommandInteraction,
  context: CommandContext,
): Promise<Character> {
  const name = interaction.options.getString('name', true);
  const character = await findCharacter(context.services.db, context.scope.id, name);
  if (character === undefined) throw new CommandRefusal(text.refusal('missing', { name }));
  return character;
}

/** A save's outcome for the member: the saved character, or a refusal in their words. */
export function savedOrRefused(result: SaveCharacterResult | undefined, name: string): Character {
  if (result === undefined) throw new CommandRefusal(text.refusal('missing', { name }));
  if (result.status === 'name-taken') throw new CommandRefusal(text.refusal('taken', { name }));
  if (result.status === 'full') {
    throw new CommandRefusal(text.refusal('full', { max: result.limit }));
  }
  return result.character;
}

const create: Handler = async (interaction, context) => {
  requirePermission(interaction, context, 'ManageGuild');
  const fields = checkCharacterFields({
    ...BLANK_CHARACTER,
    ...fieldsFromOptions(interaction, 'name'),
  });
  await deferIfSlow(interaction);
  const result = await createCharacter(context.services.db, {
    scope: context.scope,
    createdBy: interaction.user.id,
    fields,
    limit: CHARACTER_LIMITS.charactersPerServer,
  });
  const character = savedOrRefused(result, fields.name);
  await respond(interaction, text.get(context.locale, 'created', { name: character.name }));
};

const edit: Handler = async (interaction, context) => {
  requirePermission(interaction, context, 'ManageGuild');
  const current = await namedCharacter(interaction, context);
  const fields = checkCharacterFields({
    ...current,
    ...fieldsFromOptions(interaction, 'new_name'),
  });
  await deferIfSlow(interaction);
  const result = await updateCharacter(context.services.db, {
    scopeId: context.scope.id,
    id: current.id,
    fields,
  });
  const character = savedOrRefused(result, fields.name);
  context.services.charactersChanged();
  await respond(interaction, text.get(context.locale, 'edited', { name: character.name }));
};

const list: Handler = async (interaction, context) => {
  const characters = await listCharacters(context.services.db, context.scope.id);
  if (characters.length === 0) {
    await respond(interaction, text.get(context.locale, 'none'));
    return;
  }
  const lines = characters.map((character) => `• **${character.name}** — ${preview(character)}`);
  const embed = new EmbedBuilder()
    .setTitle(
      text.get(context.locale, 'listTitle', {
        count: characters.length,
        max: CHARACTER_LIMITS.charactersPerServer,
      }),
    )
    .setDescription(clip(lines.join('\n'), DESCRIPTION_LIMIT));
  await respond(interaction, { embeds: [embed] });
};

const show: Handler = async (interaction, context) => {
  const character = await namedCharacter(interaction, context);
  await respond(interaction, { embeds: [characterEmbed(character, context.locale)] });
};

const remove: Handler = async (interaction, context) => {
  requirePermission(interaction, context, 'ManageGuild');
  const character = await namedCharacter(interaction, context);
  await deferIfSlow(interaction);
  await removeCharacter(context.services.db, context.scope.id, character.name);
  context.services.charactersChanged();
  await respond(interaction, text.get(context.locale, 'removed', { name: character.name }));
};

/** `/character`'s own subcommands (cards are in character-card-subcommands.ts). */
export const CHARACTER_SUBCOMMANDS: Readonly<Record<string, Handler>> = {
  create,
  edit,
  list,
  show,
  remove,
};

function characterEmbed(character: Character, locale: Locale): EmbedBuilder {
  const unset = text.get(locale, 'serverDefault');
  const embed = new EmbedBuilder()
    .setTitle(character.name)
    .setDescription(clip(character.persona, DESCRIPTION_LIMIT))
    .addFields(
      {
        name: text.get(locale, 'field.greeting'),
        value: clip(character.greeting ?? '—', FIELD_LIMIT),
      },
      {
        name: text.get(locale, 'field.triggers'),
        value: clip(
          character.triggerWords.map((word) => `\`${word}\``).join(', ') || '—',
          FIELD_LIMIT,
        ),
      },
      {
        name: text.get(locale, 'field.model'),
        value: `${character.provider ?? unset} / ${character.model ?? unset}`,
      },
      {
        name: text.get(locale, 'field.voice'),
        value: [character.humanizerDegree, character.temperature, character.language]
          .map((value) => (value === undefined ? unset : String(value)))
          .join(' / '),
      },
    );
  if (character.avatarUrl !== undefined) embed.setThumbnail(character.avatarUrl);
  return embed;
}

function preview(character: Character): string {
  const firstLine = character.persona.split('\n')[0] ?? '';
  return clip(firstLine, 80);
}

function clip(value: string, limit: number): string {
  return value.length <= limit ? value : `${value.slice(0, limit - 1)}…`;
}
