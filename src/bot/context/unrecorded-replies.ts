import { importanceOf } from '../../core/importance.ts';
import { LruMap } from '../../core/lru-map.ts';
import type { ContextTurn } from '../../db/context-turn-repository.ts';
import type { AssistantTurnEnd } from '../../db/turn-repository.ts';

/** Channels whose unrecorded replies are held at most (the least recently used go first). */
const CHANNELS_HELD = 1_000;
/** Replies held per channel at most (the oldest go first). */
const REPLIES_PER_CHANNEL = 20;

/** A reply members saw whose end the database did not take. */
export interface UnrecordedReply {
  turnId: string;
  channelId: string;
  botUserId: string;
  /** The name the reply was spoken under: the bot's, or its character's. */
  botName: string;
  /** The character that spoke it, if one did. */
  characterId?: string | undefined;
  triggerMessageId: string;
  startedAt: Date;
  end: AssistantTurnEnd;
}

/**
 * Replies delivered to a channel whose record failed (the end write gave up: the database was
 * away longer than its retries, or shutdown ended the wait). What the model sees must match
 * what members saw: before the channel's next turn reads its history, each held reply is
 * written again (`reconcile`), and one still not written is shown to the model from here.
 * Bounded; lost with the process (a later start reads the channel's stored turns as they are).
 */
export class UnrecordedReplies {
  readonly #byChannel = new LruMap<string, UnrecordedReply[]>(CHANNELS_HELD);

  hold(reply: UnrecordedReply): void {
    const held = (this.#byChannel.get(reply.channelId) ?? []).filter(
      (other) => other.turnId !== reply.turnId,
    );
    held.push(reply);
    this.#byChannel.set(reply.channelId, held.slice(-REPLIES_PER_CHANNEL));
  }

  /** Whether replies of the channel are held (its next turn writes them before reading). */
  holds(channelId: string): boolean {
    return this.#byChannel.has(channelId);
  }

  /**
   * Writes the channel's held replies again (`write`, one try each); returns, as stored turns,
   * those still not written. Nothing held: no write, no await of the database.
   */
  async reconcile(
    channelId: string,
    write: (reply: UnrecordedReply) => Promise<void>,
  ): Promise<ContextTurn[]> {
    const held = this.#byChannel.get(channelId);
    if (held === undefined || held.length === 0) return [];
    const unwritten: UnrecordedReply[] = [];
    for (const reply of held) {
      await write(reply).catch(() => unwritten.push(reply));
    }
    if (unwritten.length === 0) this.#byChannel.delete(channelId);
    else this.#byChannel.set(channelId, unwritten);
    return unwritten.map(asContextTurn);
  }
}

function asContextTurn(reply: UnrecordedReply): ContextTurn {
  return {
    id: reply.turnId,
    role: 'assistant',
    authorId: reply.botUserId,
    authorName: reply.botName,
    characterId: reply.characterId ?? null,
    triggerMessageId: reply.triggerMessageId,
    discordMessageIds: [...reply.end.discordMessageIds],
    content: reply.end.content,
    createdAt: reply.startedAt,
    status: reply.end.status,
    importance: importanceOf('assistant', reply.end.content),
    pinned: false,
    // Held in memory with its end: members saw it whole.
    unfinished: false,
  };
}
