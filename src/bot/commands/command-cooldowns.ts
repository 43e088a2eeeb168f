import type { Clock } from '../../core/clock.ts';
import type { CommandCategory } from './slash-command.ts';

/** Minimum time between two commands of a category by one user. */
export const DEFAULT_COOLDOWNS_MS: Readonly<Record<CommandCategory, number>> = {
  config: 2_000,
  conversation: 3_000,
  info: 1_000,
  diagnostics: 15_000,
};

const PRUNE_EVERY = 1_000;

/**
 * Per user, per command category: a member spamming `/doctor` (which makes a live provider
 * call on the server's key) is slowed down without blocking `/help` or anyone else.
 */
export class CommandCooldowns {
  readonly #clock: Clock;
  readonly #cooldowns: Readonly<Record<CommandCategory, number>>;
  readonly #lastUse = new Map<string, number>();
  #sincePrune = 0;

  constructor(options: { clock: Clock; cooldownsMs?: Partial<Record<CommandCategory, number>> }) {
    this.#clock = options.clock;
    this.#cooldowns = { ...DEFAULT_COOLDOWNS_MS, ...options.cooldownsMs };
  }

  /** Records a use and returns 0, or returns the milliseconds left when still cooling down. */
  take(userId: string, category: CommandCategory): number {
    const now = this.#clock.now();
    const key = `${category}:${userId}`;
    const last = this.#lastUse.get(key);
    const cooldown = this.#cooldowns[category];
    if (last !== undefined && now - last < cooldown) return cooldown - (now - last);
    this.#lastUse.set(key, now);
    if (++this.#sincePrune >= PRUNE_EVERY) this.#prune(now);
    return 0;
  }

  #prune(now: number): void {
    this.#sincePrune = 0;
    const longest = Math.max(...Object.values(this.#cooldowns));
    for (const [key, last] of this.#lastUse) if (now - last >= longest) this.#lastUse.delete(key);
  }
}
