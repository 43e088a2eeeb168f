import type { ChatInputCommandInteraction } from 'discord.js';
import { CHARACTER_LIMITS, type CharacterFields } from '../../../core/character.ts';
import { PROVIDER_IDS, type ProviderId } from '../../../core/provider.ts';
import type { HumanizerDegree } from '../../../core/settings.ts';
import { characterNameProblem } from '../../cast/character-name.ts';
import { CommandRefusal } from '../../i18n/member-text.ts';
import { characterText as text } from './character-texts.ts';

/** A new character's fields before the member's options fill them. */
export const BLANK_CHARACTER: CharacterFields = Object.freeze({
  name: '',
  avatarUrl: undefined,
  persona: '',
  greeting: undefined,
  triggerWords: [],
  provider: undefined,
  model: undefined,
  temperature: undefined,
  humanizerDegree: undefined,
  language: undefined,
  card: undefined,
});

/**
 * The fields a `/character create` or `edit` sets: only the options given (an edit keeps the
 * rest). `nameOption` is where the (new) name comes from.
 */
export function fieldsFromOptions(
  interaction: ChatInputCommandInteraction,
  nameOption: 'name' | 'new_name',
): Partial<CharacterFields> {
  const options = interaction.options;
  const fields: Partial<CharacterFields> = {};
  const name = options.getString(nameOption);
  if (name !== null) fields.name = name.normalize('NFKC').trim();
  const persona = options.getString('persona');
  if (persona !== null) fields.persona = persona.trim();
  const avatar = avatarOf(interaction);
  if (avatar !== undefined) fields.avatarUrl = avatar;
  const greeting = options.getString('greeting');
  if (greeting !== null) fields.greeting = greeting.trim() === '' ? undefined : greeting.trim();
  const triggers = options.getString('triggers');
  if (triggers !== null) fields.triggerWords = triggerWordsOf(triggers);
  const provider = options.getString('provider');
  if (provider !== null && (PROVIDER_IDS as readonly string[]).includes(provider)) {
    fields.provider = provider as ProviderId;
  }
  const model = options.getString('model');
  if (model !== null) fields.model = model.trim() === '' ? undefined : model.trim();
  const temperature = options.getNumber('temperature');
  if (temperature !== null) fields.temperature = temperature;
  const humanizer = options.getInteger('humanizer');
  if (humanizer !== null) fields.humanizerDegree = humanizer as HumanizerDegree;
  const language = options.getString('language');
  if (language !== null) fields.language = language;
  return fields;
}

/** Refuses, in the member's words, what a character cannot be. */
export function checkCharacterFields(fields: CharacterFields): CharacterFields {
  if (characterNameProblem(fields.name) !== undefined) {
    throw new CommandRefusal(text.refusal('badName', { max: CHARACTER_LIMITS.name }));
  }
  if (fields.persona.trim() === '') throw new CommandRefusal(text.refusal('emptyPersona'));
  if (fields.persona.length > CHARACTER_LIMITS.persona) {
    throw new CommandRefusal(text.refusal('longPersona', { max: CHARACTER_LIMITS.persona }));
  }
  if (fields.avatarUrl !== undefined && !isImageUrl(fields.avatarUrl)) {
    throw new CommandRefusal(text.refusal('badAvatar'));
  }
  const words = fields.triggerWords;
  if (
    words.length > CHARACTER_LIMITS.triggerWords ||
    words.some((word) => word.length > CHARACTER_LIMITS.triggerWord)
  ) {
    throw new CommandRefusal(
      text.refusal('badTriggers', {
        max: CHARACTER_LIMITS.triggerWords,
        length: CHARACTER_LIMITS.triggerWord,
      }),
    );
  }
  return fields;
}

/** An uploaded image wins over a typed URL; a non-image upload is refused. */
function avatarOf(interaction: ChatInputCommandInteraction): string | undefined {
  const upload = interaction.options.getAttachment('avatar_image');
  if (upload !== null) {
    if (upload.contentType?.startsWith('image/') !== true) {
      throw new CommandRefusal(text.refusal('badAvatar'));
    }
    return upload.url;
  }
  const url = interaction.options.getString('avatar');
  return url === null ? undefined : url.trim();
}

function isImageUrl(value: string): boolean {
  if (value.length > CHARACTER_LIMITS.avatarUrl) return false;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

function triggerWordsOf(list: string): string[] {
  const words = list
    .split(/[,、，]/)
    .map((word) => word.normalize('NFKC').trim())
    .filter((word) => word !== '');
  return [...new Map(words.map((word) => [word.toLowerCase(), word])).values()];
}
