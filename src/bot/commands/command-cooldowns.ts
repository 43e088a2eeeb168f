import type { Clock } from '../../core/clock.ts';
import type { CommandCategory } from './slash-command.ts';

/** A category allows `burst` uses at once, then one more every `refillMs`. */
export interface CooldownRule {
  burst: number;
  refillMs: number;
}

/**
 * An admin setting provider, model, key and persona in a row is not slowed down; a member
 * spamming `/doctor` (a live provider call on the server's key) is.
 */
export const DEFAULT_COOLDOWNS: Readonly<Record<CommandCategory, CooldownRule>> = {
  config: { burst: 8, refillMs: 2_000 },
  conversation: { burst: 4, refillMs: 3_000 },
  info: { burst: 3, refillMs: 2_000 },
  diagnostics: { burst: 2, refillMs: 15_000 },
};

const PRUNE_EVERY = 1_000;

interface Bucket {
  tokens: number;
  at: number;
}

/** Per user and command category, so one member's burst never blocks another or `/help`. */
export class CommandCooldowns {
  readonly #clock: Clock;
  readonly #rules: Readonly<Record<CommandCategory, CooldownRule>>;
  readonly #buckets = new Map<string, Bucket>();
  #sincePrune = 0;

  constructor(options: { clock: Clock; rules?: Partial<Record<CommandCategory, CooldownRule>> }) {
    this.#clock = options.clock;
    this.#rules = { ...DEFAULT_COOLDOWNS, ...options.rules };
  }

  /** Takes one use and returns 0, or returns the milliseconds until the next use is allowed. */
  take(userId: string, category: CommandCategory): number {
    const now = this.#clock.now();
    const rule = this.#rules[category];
    const key = `${category}:${userId}`;
    const bucket = this.#buckets.get(key) ?? { tokens: rule.burst, at: now };
    const refilled = Math.min(rule.burst, bucket.tokens + (now - bucket.at) / rule.refillMs);
    if (refilled < 1) return Math.ceil((1 - refilled) * rule.refillMs);
    this.#buckets.set(key, { tokens: refilled - 1, at: now });
    if (++this.#sincePrune >= PRUNE_EVERY) this.#prune(now);
    return 0;
  }

  #prune(now: number): void {
    this.#sincePrune = 0;
    for (const [key, bucket] of this.#buckets) {
      const category = key.slice(0, key.indexOf(':')) as CommandCategory;
      const rule = this.#rules[category];
      if (bucket.tokens + (now - bucket.at) / rule.refillMs >= rule.burst)
        this.#buckets.delete(key);
    }
  }
}
