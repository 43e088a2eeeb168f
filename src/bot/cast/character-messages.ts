import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import { LruMap } from '../../core/lru-map.ts';
import {
  characterOfMessage,
  recordCharacterMessage,
  type CharacterMessageRecord,
} from '../../db/character-message-repository.ts';
import type { Database } from '../../db/database.ts';
import { retryTransient } from '../../db/retry-transient.ts';

/** Messages whose character is remembered in memory (older ones are read back when replied to). */
const REMEMBERED_MESSAGES = 20_000;
/** How long a record is retried through a database outage before it is given up (logged). */
const RECORD_RETRY_MS = 60_000;

/**
 * Which character posted which webhook message: a member replying to it addresses that
 * character (a webhook message cannot be replied to as a user's can, so Discord does not tell).
 * Written in the background when a message is posted; read from memory, else the database.
 */
export class CharacterMessages {
  readonly #db: Database;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #signal: AbortSignal;
  /** Message id → its character, or null for one read back and found to be no character's. */
  readonly #known = new LruMap<string, string | null>(REMEMBERED_MESSAGES);

  constructor(options: { db: Database; clock: Clock; logger: Logger; signal: AbortSignal }) {
    this.#db = options.db;
    this.#clock = options.clock;
    this.#logger = options.logger;
    this.#signal = options.signal;
  }

  /** With the member message the turn answered: recovery finds a character's reply by it. */
  remember(record: CharacterMessageRecord): void {
    this.#known.set(record.messageId, record.characterId);
    void retryTransient(() => recordCharacterMessage(this.#db, record), {
      clock: this.#clock,
      signal: this.#signal,
      maxElapsedMs: RECORD_RETRY_MS,
    }).catch((error: unknown) => {
      this.#logger.warn(
        { err: error, messageId: record.messageId },
        'could not remember a character message',
      );
    });
  }

  /** The character that posted `messageId`, if one did. */
  async characterOf(messageId: string): Promise<string | undefined> {
    const known = this.#known.get(messageId);
    if (known !== undefined) return known ?? undefined;
    const stored = await characterOfMessage(this.#db, messageId);
    // Members reply to each other far more than to characters: a miss is remembered too.
    this.#known.set(messageId, stored ?? null);
    return stored;
  }
}
