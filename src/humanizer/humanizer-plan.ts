import type { HumanizerDegree } from '../core/settings.ts';
import { applyHeavyStyle } from './heavy-style.ts';

/**
 * What a humanizer degree means for delivery. The stream layer reads the plan: `messageUnit`
 * decides where its block buffer ends a message, `typingPacing` whether it pauses between
 * messages, and `rewrite` is applied to each finished message.
 *
 * - 0 none: the model's text, one message per paragraph (a long paragraph is split at lines,
 *   then sentences — see the stream's block policy).
 * - 1 light (a new scope's default): as 0, plus a style hint in the system prompt.
 * - 2 medium: as 1, with typing pauses between messages.
 * - 3 heavy: one message per sentence, casual lowercase, trailing periods dropped, pauses.
 */
export interface HumanizerPlan {
  degree: HumanizerDegree;
  messageUnit: 'paragraph' | 'sentence';
  typingPacing: boolean;
  rewrite: (text: string) => string;
}

const unchanged = (text: string): string => text;

export function humanizerPlan(degree: HumanizerDegree): HumanizerPlan {
  switch (degree) {
    case 0:
    case 1:
      return { degree, messageUnit: 'paragraph', typingPacing: false, rewrite: unchanged };
    case 2:
      return { degree, messageUnit: 'paragraph', typingPacing: true, rewrite: unchanged };
    case 3:
      return { degree, messageUnit: 'sentence', typingPacing: true, rewrite: applyHeavyStyle };
  }
}

/** The text of one message as the degree writes it (identity below degree 3). */
export function humanizeText(text: string, degree: HumanizerDegree): string {
  return humanizerPlan(degree).rewrite(text);
}
