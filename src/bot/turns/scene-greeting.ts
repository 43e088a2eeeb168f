import type { Character } from '../../core/character.ts';
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import { timeOrderedId } from '../../core/time-ordered-id.ts';
import type { Database } from '../../db/database.ts';
import { retryTransient } from '../../db/retry-transient.ts';
import { recordSpokenLine } from '../../db/turn-repository.ts';
import { DISCORD_MESSAGE_LIMIT } from '../../stream/reply/chunker.ts';
import type { DeliveryPort } from '../delivery/delivery-port.ts';
import type { TurnPlace } from '../intake/accepted-message.ts';
import type { CharacterSpeakers } from '../intake/character-speakers.ts';

/** How long the greeting's record is retried through a database outage. */
const RECORD_RETRY_MS = 30_000;
/** Room left for the name heading a character's message where no webhook carries its name. */
const HEADING_ROOM = 100;

export type GreetingOutcome = 'posted' | 'none' | 'failed';

export interface SceneGreetingsOptions {
  db: Database;
  delivery: DeliveryPort;
  speakers: CharacterSpeakers;
  /** Every reply's author; the character is recorded beside it. */
  botUserId: string;
  clock: Clock;
  logger: Logger;
  /** Aborted at shutdown. */
  signal: AbortSignal;
}

/**
 * A character's greeting (a card's `first_mes`) when it comes on stage: posted in its voice —
 * the channel's webhook, or the bot headed by its name — through the one write path with no
 * mentions parsed, then stored as a line of its own (a complete reply under the character), so
 * the conversation shows it as the character's words and a reply to it addresses the character.
 */
export class SceneGreetings {
  readonly #options: SceneGreetingsOptions;

  constructor(options: SceneGreetingsOptions) {
    this.#options = options;
  }

  async greet(request: {
    place: TurnPlace;
    scopeId: string;
    character: Character;
  }): Promise<GreetingOutcome> {
    const { place, character } = request;
    const greeting = character.greeting?.trim() ?? '';
    if (greeting === '') return 'none';
    const { delivery, speakers, logger, signal } = this.#options;
    const content = fit(greeting, DISCORD_MESSAGE_LIMIT - HEADING_ROOM);
    const writer = delivery.to(speakers.targetFor(place, character));
    const posted = await writer.post(
      { content, allowedMentions: { parse: [], repliedUser: false } },
      signal,
    );
    if (posted.kind !== 'written') {
      logger.warn(
        { channelId: place.channelId, characterId: character.id, outcome: posted.kind },
        'could not post a greeting',
      );
      return 'failed';
    }
    await this.#record({ ...request, content, messageId: posted.value });
    return 'posted';
  }

  /** The greeting as the character's line (a failed record is logged: the channel shows it). */
  async #record(line: {
    place: TurnPlace;
    scopeId: string;
    character: Character;
    content: string;
    messageId: string;
  }): Promise<void> {
    const { db, clock, logger, signal, botUserId } = this.#options;
    // One id for every attempt: a record whose commit's answer was lost is not stored twice.
    const id = timeOrderedId();
    const record = () =>
      recordSpokenLine(db, {
        id,
        scopeId: line.scopeId,
        channelId: line.place.channelId,
        authorId: botUserId,
        characterName: line.character.name,
        characterId: line.character.id,
        messageId: line.messageId,
        content: line.content,
      });
    await retryTransient(record, { clock, signal, maxElapsedMs: RECORD_RETRY_MS }).catch(
      (error: unknown) => logger.warn({ err: error }, 'could not record a greeting'),
    );
  }
}

function fit(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}
