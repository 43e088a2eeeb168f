import type { ProviderId } from './provider.ts';
import type { HumanizerDegree } from './settings.ts';

/**
 * A character of a server: a persona with its own name and avatar that members address in its
 * channels. Its persona is text a member wrote (or a card they imported): it shapes how the
 * model speaks, never the bot's own rules. Unset optional fields fall back to the server's.
 */
export interface Character {
  id: string;
  scopeId: string;
  name: string;
  avatarUrl: string | undefined;
  persona: string;
  greeting: string | undefined;
  triggerWords: readonly string[];
  provider: ProviderId | undefined;
  model: string | undefined;
  temperature: number | undefined;
  humanizerDegree: HumanizerDegree | undefined;
  language: string | undefined;
  /** An imported card's other fields, kept so an export gives them back. */
  card: Readonly<Record<string, unknown>> | undefined;
  createdBy: string;
}

/** What a member sets on a character; the store adds id, scope and author. */
export type CharacterFields = Omit<Character, 'id' | 'scopeId' | 'createdBy'>;

/** Sizes a character's fields may reach (Discord shows a webhook name of at most 80). */
export const CHARACTER_LIMITS = {
  name: 80,
  persona: 12_000,
  greeting: 2_000,
  triggerWords: 10,
  triggerWord: 50,
  avatarUrl: 2_000,
  charactersPerServer: 50,
  charactersPerScene: 8,
} as const;

/** The form of a name that lookups and addressing compare: NFKC, trimmed, lower case. */
export function characterNameKey(name: string): string {
  return name.normalize('NFKC').trim().toLocaleLowerCase('en-US');
}
