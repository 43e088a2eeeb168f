/**
 * SillyTavern character cards, in and out. A card is JSON — V1 (flat fields), V2
 * (`chara_card_v2`) or V3 (`chara_card_v3`) — or a PNG carrying it base64 in a `tEXt` chunk
 * (`ccv3` preferred over `chara`). Everything in a card is untrusted text a stranger wrote: it
 * becomes the character's persona (what the model plays), never the bot's own rules, so the
 * card's `system_prompt` and `post_history_instructions` are kept for export but not used.
 */
import { z } from 'zod';
import { CHARACTER_LIMITS, type Character, type CharacterFields } from '../../../core/character.ts';
import { characterNameProblem } from '../character-name.ts';
import { isPng, readPngTextChunks } from './png-text-chunks.ts';

/** The largest card file read: a PNG with its image; its JSON alone is far smaller. */
export const CARD_LIMITS = Object.freeze({ fileBytes: 4 * 1024 * 1024, jsonBytes: 512 * 1024 });

/** Where this bot keeps its own fields in a card's `extensions` (for a round trip). */
const EXTENSION_KEY = 'tomodachi';
/** What `{{user}}` in a card becomes: the member is named in the conversation itself. */
const USER_PLACEHOLDER = 'User';

const cardText = z.string().max(CARD_LIMITS.jsonBytes);

const cardData = z
  .object({
    name: z.string().min(1).max(200),
    description: cardText.default(''),
    personality: cardText.default(''),
    scenario: cardText.default(''),
    first_mes: cardText.default(''),
    mes_example: cardText.default(''),
    extensions: z.record(z.string(), z.unknown()).default({}),
  })
  .loose();

const specCard = z
  .object({
    spec: z.enum(['chara_card_v3', 'chara_card_v2']),
    spec_version: z.string(),
    data: cardData,
  })
  .loose();

const ownExtension = z
  .object({
    trigger_words: z
      .array(z.string().min(1).max(CHARACTER_LIMITS.triggerWord))
      .max(CHARACTER_LIMITS.triggerWords)
      .optional(),
    avatar_url: z.url().max(CHARACTER_LIMITS.avatarUrl).optional(),
  })
  .loose();

type CardData = z.infer<typeof cardData>;

export type CardProblem =
  'too-large' | 'not-a-card' | 'invalid-name' | 'no-persona' | 'persona-too-long';

export type CardReading =
  | { ok: true; fields: CharacterFields; spec: 'v1' | 'v2' | 'v3' }
  | { ok: false; problem: CardProblem };

/** Reads a card file (PNG or JSON) into a character's fields. */
export function readCharacterCard(bytes: Uint8Array): CardReading {
  if (bytes.length > CARD_LIMITS.fileBytes) return { ok: false, problem: 'too-large' };
  const json = isPng(bytes) ? cardJsonInPng(bytes) : new TextDecoder().decode(bytes);
  if (json === undefined) return { ok: false, problem: 'not-a-card' };
  if (json.length > CARD_LIMITS.jsonBytes) return { ok: false, problem: 'too-large' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return { ok: false, problem: 'not-a-card' };
  }
  const withSpec = specCard.safeParse(parsed);
  if (withSpec.success) {
    return fieldsOf(withSpec.data.data, withSpec.data.spec === 'chara_card_v3' ? 'v3' : 'v2');
  }
  const flat = isObject(parsed) && !('spec' in parsed) ? cardData.safeParse(parsed) : undefined;
  return flat?.success === true ? fieldsOf(flat.data, 'v1') : { ok: false, problem: 'not-a-card' };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fieldsOf(data: CardData, spec: 'v1' | 'v2' | 'v3'): CardReading {
  const name = data.name.normalize('NFKC').trim();
  if (characterNameProblem(name) !== undefined) return { ok: false, problem: 'invalid-name' };
  const persona = personaOf(data);
  if (persona.length === 0) return { ok: false, problem: 'no-persona' };
  if (persona.length > CHARACTER_LIMITS.persona) return { ok: false, problem: 'persona-too-long' };
  const own = ownExtension.safeParse(data.extensions[EXTENSION_KEY] ?? {});
  const greeting = fillMacros(data.first_mes, name).slice(0, CHARACTER_LIMITS.greeting).trim();
  return {
    ok: true,
    spec,
    fields: {
      name,
      avatarUrl: own.success ? own.data.avatar_url : undefined,
      persona,
      greeting: greeting === '' ? undefined : greeting,
      triggerWords: own.success ? (own.data.trigger_words ?? []) : [],
      provider: undefined,
      model: undefined,
      temperature: undefined,
      humanizerDegree: undefined,
      language: undefined,
      card: data,
    },
  };
}

/** The persona a card's description, personality, scenario and example dialogue make. */
function personaOf(data: CardData): string {
  const name = data.name.normalize('NFKC').trim();
  const part = (label: string | undefined, value: string) => {
    const text = fillMacros(value, name).trim();
    if (text === '') return undefined;
    return label === undefined ? text : `${label}:\n${text}`;
  };
  return [
    part(undefined, data.description),
    part('Personality', data.personality),
    part('Scenario', data.scenario),
    part('Example dialogue', data.mes_example),
  ]
    .filter((text) => text !== undefined)
    .join('\n\n');
}

/** SillyTavern's macros for the character and the user, in both spellings. */
function fillMacros(text: string, name: string): string {
  return text
    .replace(/\{\{char\}\}|<BOT>/gi, name)
    .replace(/\{\{user\}\}|<USER>/gi, USER_PLACEHOLDER);
}

function cardJsonInPng(bytes: Uint8Array): string | undefined {
  const texts = readPngTextChunks(bytes);
  const encoded = texts?.get('ccv3') ?? texts?.get('chara');
  if (encoded === undefined || encoded.length > (CARD_LIMITS.jsonBytes * 4) / 3 + 4) {
    return undefined;
  }
  return Buffer.from(encoded, 'base64').toString('utf8');
}

/**
 * A V3 card (JSON) of a character. An imported card's own fields come back as they were while
 * the persona is unchanged; an edited persona becomes the description. This bot's trigger
 * words and avatar ride in `extensions.tomodachi`.
 */
export function writeCharacterCard(character: Character): string {
  const original = character.card === undefined ? undefined : cardData.safeParse(character.card);
  const kept = original?.success === true ? original.data : undefined;
  const unchanged =
    kept !== undefined && personaOf({ ...kept, name: character.name }) === character.persona;
  const extensions = { ...(kept?.extensions ?? {}) };
  extensions[EXTENSION_KEY] = {
    trigger_words: [...character.triggerWords],
    ...(character.avatarUrl === undefined ? {} : { avatar_url: character.avatarUrl }),
  };
  const data = {
    ...(kept ?? {}),
    name: character.name,
    description: unchanged ? kept.description : character.persona,
    personality: unchanged ? kept.personality : '',
    scenario: unchanged ? kept.scenario : '',
    mes_example: unchanged ? kept.mes_example : '',
    first_mes: character.greeting ?? '',
    extensions,
  };
  return JSON.stringify({ spec: 'chara_card_v3', spec_version: '3.0', data }, null, 2);
}
