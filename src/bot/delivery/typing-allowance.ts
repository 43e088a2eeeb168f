import type { Clock } from '../../core/clock.ts';

/** Typing calls per second the whole process may make: well inside Discord's global 50/s. */
const DEFAULT_PER_SECOND = 10;

/**
 * Typing indicators are cosmetic, and every one costs a request from Discord's global budget
 * of 50 per second that the replies themselves need. When many channels start at once, the
 * typing calls beyond this allowance are skipped (not queued): a reply is never late because
 * a typing indicator went first.
 */
export class TypingAllowance {
  readonly #clock: Clock;
  readonly #perSecond: number;
  readonly #onSkipped: () => void;
  #tokens: number;
  #at: number;

  constructor(
    clock: Clock,
    options: { perSecond?: number | undefined; onSkipped?: () => void } = {},
  ) {
    const perSecond = options.perSecond ?? DEFAULT_PER_SECOND;
    this.#clock = clock;
    this.#perSecond = perSecond;
    this.#onSkipped = options.onSkipped ?? (() => undefined);
    this.#tokens = perSecond;
    this.#at = clock.now();
  }

  /** True (and one typing call spent) when a typing call may go now. */
  tryTake(): boolean {
    const now = this.#clock.now();
    this.#tokens = Math.min(
      this.#perSecond,
      this.#tokens + ((now - this.#at) / 1000) * this.#perSecond,
    );
    this.#at = now;
    if (this.#tokens < 1) {
      this.#onSkipped();
      return false;
    }
    this.#tokens -= 1;
    return true;
  }
}
