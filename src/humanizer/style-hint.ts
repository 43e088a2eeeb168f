import type { HumanizerDegree } from '../core/settings.ts';

/**
 * The system-prompt hint for a humanizer degree. Degree 1 (light) changes nothing but this:
 * the model is asked to write like a person chatting, and its text reaches Discord unchanged.
 * Degrees 2 and 3 add what their delivery does, so the model writes for it.
 */
const LIGHT =
  'You are chatting on Discord. Write like a person in a chat: conversational and concise, ' +
  'short paragraphs, no headings, no sign-offs, lists only when they really help.';

const MEDIUM = `${LIGHT} Each paragraph is sent as its own message, so keep paragraphs short.`;

const HEAVY =
  `${LIGHT} Each sentence is sent as its own message, like texting a friend: ` +
  'short, casual sentences.';

export function humanizerStyleHint(degree: HumanizerDegree): string | undefined {
  switch (degree) {
    case 0:
      return undefined;
    case 1:
      return LIGHT;
    case 2:
      return MEDIUM;
    case 3:
      return HEAVY;
  }
}
