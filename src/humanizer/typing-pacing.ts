import type { RandomSource } from '../core/clock.ts';

/** How long "typing" lasts before a message at degrees 2 and 3. */
export interface TypingPacing {
  /** Pause per character of the coming message. */
  millisecondsPerCharacter: number;
  minimumMs: number;
  maximumMs: number;
  /** Relative jitter: 0.25 varies each pause by up to ±25 %. */
  jitter: number;
}

export const DEFAULT_TYPING_PACING: TypingPacing = Object.freeze({
  millisecondsPerCharacter: 25,
  minimumMs: 400,
  maximumMs: 4000,
  jitter: 0.25,
});

/**
 * The pause before sending `text`: proportional to its length, clamped, with jitter — and
 * clamped again after the jitter, so the bounds hold for every draw of `random`.
 */
export function typingDelayMs(
  text: string,
  random: RandomSource,
  pacing: TypingPacing = DEFAULT_TYPING_PACING,
): number {
  const clamp = (value: number): number =>
    Math.min(pacing.maximumMs, Math.max(pacing.minimumMs, value));
  const base = clamp(text.length * pacing.millisecondsPerCharacter);
  const jittered = base * (1 + pacing.jitter * (2 * random() - 1));
  return Math.round(clamp(jittered));
}
