import { AttachmentBuilder, type ChatInputCommandInteraction } from 'discord.js';
import { CHARACTER_LIMITS } from '../../../core/character.ts';
import { createCharacter } from '../../../db/character-repository.ts';
import {
  CARD_LIMITS,
  readCharacterCard,
  writeCharacterCard,
  type CardProblem,
} from '../../cast/cards/character-card.ts';
import { fetchDownload, type Download } from '../../context/trigger-attachments.ts';
import { CommandRefusal } from '../../i18n/member-text.ts';
import { requirePermission } from '../command-access.ts';
import { deferIfSlow, respond } from '../command-replies.ts';
import type { CommandContext } from '../slash-command.ts';
import { checkCharacterFields } from './character-options.ts';
import { namedCharacter, savedOrRefused } from './character-subcommands.ts';
import { characterText as text } from './character-texts.ts';

type Handler = (interaction: ChatInputCommandInteraction, context: CommandContext) => Promise<void>;

const BYTES_PER_MEGABYTE = 1024 * 1024;

/** What a card the member sent cannot be, in their words. */
const CARD_REFUSALS: Record<CardProblem, () => CommandRefusal> = {
  'too-large': () =>
    new CommandRefusal(
      text.refusal('cardTooLarge', { max: CARD_LIMITS.fileBytes / BYTES_PER_MEGABYTE }),
    ),
  'not-a-card': () => new CommandRefusal(text.refusal('cardUnreadable')),
  'invalid-name': () => new CommandRefusal(text.refusal('badName', { max: CHARACTER_LIMITS.name })),
  'no-persona': () => new CommandRefusal(text.refusal('cardNoPersona')),
  'persona-too-long': () =>
    new CommandRefusal(text.refusal('longPersona', { max: CHARACTER_LIMITS.persona })),
};

/**
 * `/character import` (Manage Server): downloads the attached card within the size limit and
 * creates the character it describes; `/character export`: the character as a V3 card.
 */
export function cardSubcommands(
  download: Download = fetchDownload,
): Readonly<Record<string, Handler>> {
  const importCard: Handler = async (interaction, context) => {
    requirePermission(interaction, context, 'ManageGuild');
    const file = interaction.options.getAttachment('card', true);
    if (file.size > CARD_LIMITS.fileBytes) throw CARD_REFUSALS['too-large']();
    await deferIfSlow(interaction);
    const bytes = await download(file.url, {
      maxBytes: CARD_LIMITS.fileBytes,
      signal: AbortSignal.timeout(CARD_DOWNLOAD_TIMEOUT_MS),
    }).catch(() => {
      throw CARD_REFUSALS['not-a-card']();
    });
    const reading = readCharacterCard(bytes);
    if (!reading.ok) throw CARD_REFUSALS[reading.problem]();
    const fields = checkCharacterFields(reading.fields);
    const result = await createCharacter(context.services.db, {
      scope: context.scope,
      createdBy: interaction.user.id,
      fields,
      limit: CHARACTER_LIMITS.charactersPerServer,
    });
    const character = savedOrRefused(result, fields.name);
    await respond(
      interaction,
      text.get(context.locale, 'imported', {
        name: character.name,
        spec: reading.spec.toUpperCase(),
      }),
    );
  };

  const exportCard: Handler = async (interaction, context) => {
    const character = await namedCharacter(interaction, context);
    const file = new AttachmentBuilder(Buffer.from(writeCharacterCard(character), 'utf8'), {
      name: `${fileNameOf(character.name)}.json`,
    });
    await respond(interaction, {
      content: text.get(context.locale, 'exported', { name: character.name }),
      files: [file],
    });
  };

  return { import: importCard, export: exportCard };
}

const CARD_DOWNLOAD_TIMEOUT_MS = 15_000;

function fileNameOf(name: string): string {
  const safe = name.replace(/[^\p{L}\p{N}_-]+/gu, '_').replace(/^_+|_+$/g, '');
  return safe === '' ? 'character' : safe;
}
