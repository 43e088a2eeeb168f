import { type Clock, WAIT_CANCELLED } from '../../core/clock.ts';
import type { MessageTarget } from './message-target.ts';
import type { TypingAllowance } from './typing-allowance.ts';

/** Discord clears the typing indicator after 10 s; refresh a little before. */
export const TYPING_REFRESH_MS = 8_000;
/** When the process's typing allowance is spent, ask again this much later. */
const TYPING_RETRY_MS = 1_000;
/** After a post (which clears the indicator), typing resumes this much later, not at once. */
export const TYPING_AFTER_POST_MS = 1_500;

/**
 * Keeps one channel's typing indicator alive while a reply is generated: a refresh every 8 s,
 * a short pause after each post, and nothing beyond the process's allowance.
 */
export class TypingKeeper {
  readonly #target: Pick<MessageTarget, 'sendTyping'>;
  readonly #clock: Clock;
  readonly #allowance: TypingAllowance;
  #wanted = false;
  #loop: Promise<void> | undefined;
  #wake = new AbortController();
  #lastSentAt = Number.NEGATIVE_INFINITY;

  constructor(options: {
    target: Pick<MessageTarget, 'sendTyping'>;
    clock: Clock;
    allowance: TypingAllowance;
  }) {
    this.#target = options.target;
    this.#clock = options.clock;
    this.#allowance = options.allowance;
  }

  set(active: boolean): void {
    this.#wanted = active;
    if (active) {
      this.#loop ??= this.#keepTyping().finally(() => {
        this.#loop = undefined;
      });
    } else {
      this.#wake.abort(WAIT_CANCELLED);
    }
  }

  /** A post cleared the indicator: show it again shortly if generation goes on. */
  posted(): void {
    this.#lastSentAt = this.#clock.now() - TYPING_REFRESH_MS + TYPING_AFTER_POST_MS;
    this.#wake.abort(WAIT_CANCELLED);
  }

  /** Stops, and resolves once the loop has ended. */
  async stop(): Promise<void> {
    this.set(false);
    await this.#loop;
  }

  async #keepTyping(): Promise<void> {
    while (this.#wanted) {
      const now = this.#clock.now();
      let wait: number;
      if (now - this.#lastSentAt < TYPING_REFRESH_MS) {
        wait = this.#lastSentAt + TYPING_REFRESH_MS - now;
      } else if (this.#allowance.tryTake()) {
        this.#lastSentAt = now;
        await this.#target.sendTyping().catch(() => undefined);
        wait = this.#lastSentAt + TYPING_REFRESH_MS - this.#clock.now();
      } else {
        wait = TYPING_RETRY_MS;
      }
      try {
        await this.#clock.sleep(Math.max(1, wait), this.#wake.signal);
      } catch {
        this.#wake = new AbortController();
      }
    }
  }
}
