import type { CharacterFields } from '../../../src/core/character.ts';

/**
 * A character's fields as a test seeds it: its name and persona, an avatar under
 * example.test, nothing else set unless `extra` sets it.
 */
export function characterFields(
  name: string,
  persona: string,
  extra: Partial<CharacterFields> = {},
): CharacterFields {
  return {
    name,
    avatarUrl: `https://example.test/${name.toLowerCase()}.png`,
    persona,
    greeting: undefined,
    triggerWords: [],
    provider: undefined,
    model: undefined,
    temperature: undefined,
    humanizerDegree: 0,
    language: undefined,
    card: undefined,
    ...extra,
  };
}
