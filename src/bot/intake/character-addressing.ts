import { characterNameKey, type Character } from '../../core/character.ts';
import { toPattern } from './trigger-words.ts';

/**
 * Where a message's address ends: "Alice, …", "Alice and Bob: …", "ねえアリス、…". Only the
 * text before the first of these is read for names.
 */
const ADDRESS_END = /[,:;!?\n。、，！？：]/u;
/** Where a sentence ends (a reply may turn to someone after its first sentence). */
const SENTENCE_END = /(?<=[.!?。！？])\s+|\n+/u;
/** An address is short; a longer opening is a sentence that happens to contain a name. */
const ADDRESS_MAX_LENGTH = 120;
/** Words an address may hold besides names: greetings and "and". */
const ADDRESS_FILLERS = new Set([
  'hey',
  'hi',
  'hello',
  'yo',
  'oh',
  'ok',
  'okay',
  'dear',
  'so',
  'and',
  '&',
  'or',
  'both',
  'all',
  'everyone',
  'ねえ',
  'おい',
  'と',
  'や',
  'さん',
  'ちゃん',
  'くん',
]);
/** Discord mention markup that may open a message (`<@123>`, `<@&456>`) and its readable form. */
const LEADING_MENTION = /^(?:<@[!&]?\d+>|@\S+)\s*/u;

export interface AddressingInput {
  content: string;
  /** Who is on stage in the channel, in turn order. */
  scene: readonly Character[];
  /** The character whose message this one replies to, if it replies to one. */
  repliedCharacterId?: string | undefined;
}

/**
 * Which characters on stage a message addresses, in the order they answer: the one whose
 * message it replies to; those named in its opening address ("Alice, …", "Alice and Bob: …");
 * then those whose trigger words it contains. Empty when it addresses none (a mention then goes
 * to the bot itself). Names and words are matched as escaped literals, case-insensitively.
 */
export function addressedCharacters(input: AddressingInput): Character[] {
  const { scene } = input;
  if (scene.length === 0) return [];
  const text = input.content.normalize('NFKC');
  const addressed: Character[] = [];
  const add = (character: Character | undefined) => {
    if (character !== undefined && !addressed.includes(character)) addressed.push(character);
  };
  add(scene.find((character) => character.id === input.repliedCharacterId));
  for (const character of namedInAddress(text, scene)) add(character);
  for (const character of scene) {
    if (character.triggerWords.some((word) => wordPattern(word).test(text))) add(character);
  }
  return addressed;
}

/**
 * The characters a character's reply turns to: named in the opening address of any of its
 * sentences ("A song for you. Cara, your verse!"), in the order written.
 */
export function turnedToIn(reply: string, scene: readonly Character[]): Character[] {
  const found: Character[] = [];
  for (const sentence of reply.normalize('NFKC').split(SENTENCE_END)) {
    for (const character of namedInAddress(sentence, scene)) {
      if (!found.includes(character)) found.push(character);
    }
  }
  return found;
}

/** The characters a message's opening address names, when it speaks to them. */
export function namedInAddress(text: string, scene: readonly Character[]): Character[] {
  const opening = openingAddress(text);
  if (opening === undefined) return [];
  const found: Array<{ character: Character; at: number; length: number }> = [];
  for (const character of scene) {
    const match = wordPattern(character.name).exec(opening);
    if (match !== null) found.push({ character, at: match.index, length: match[0].length });
  }
  if (found.length === 0) return [];
  let rest = opening;
  for (const { character } of found) rest = rest.replace(wordPattern(character.name), ' ');
  const onlyFillers = rest
    .split(/\s+/u)
    .filter((word) => word !== '')
    .every((word) => ADDRESS_FILLERS.has(characterNameKey(word)));
  if (!onlyFillers) return [];
  return found.sort((a, b) => a.at - b.at).map((entry) => entry.character);
}

function openingAddress(text: string): string | undefined {
  const stripped = text.replace(LEADING_MENTION, '').trimStart();
  const end = stripped.search(ADDRESS_END);
  if (end <= 0 || end > ADDRESS_MAX_LENGTH) return undefined;
  return stripped.slice(0, end);
}

const patterns = new Map<string, RegExp>();

function wordPattern(word: string): RegExp {
  const key = word.normalize('NFKC').trim();
  let pattern = patterns.get(key);
  if (pattern === undefined) {
    pattern = new RegExp(toPattern(key), 'iu');
    // A bounded memo: names and trigger words of the characters on stage.
    if (patterns.size > 1_000) patterns.clear();
    patterns.set(key, pattern);
  }
  return pattern;
}
