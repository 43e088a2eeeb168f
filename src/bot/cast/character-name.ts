import { CHARACTER_LIMITS } from '../../core/character.ts';

/** Words Discord refuses in a webhook's username (50035): a character cannot be named so. */
const RESERVED_WORDS = ['discord', 'clyde'];
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

export type CharacterNameProblem = 'empty' | 'too-long' | 'reserved';

/** Why a name cannot be a character's (it is shown as a webhook's username), if it cannot. */
export function characterNameProblem(name: string): CharacterNameProblem | undefined {
  const trimmed = name.normalize('NFKC').trim();
  if (!LETTER_OR_DIGIT.test(trimmed)) return 'empty';
  if (trimmed.length > CHARACTER_LIMITS.name) return 'too-long';
  const lower = trimmed.toLowerCase();
  return RESERVED_WORDS.some((word) => lower.includes(word)) ? 'reserved' : undefined;
}
