import type { Logger } from '../../core/logger.ts';
import { timeOrderedId } from '../../core/time-ordered-id.ts';
import type { Database } from '../../db/database.ts';
import { recordUserTurn } from '../../db/turn-repository.ts';
import type { Trigger } from '../intake/trigger.ts';

/**
 * Stores the members' messages of a batch as user turns, in order. Never throws: a turn that
 * could not be stored is logged, and the reply goes on without it.
 */
export async function recordUserTurns(
  db: Database,
  turn: { batch: readonly Trigger[]; scopeId: string; logger: Logger },
): Promise<void> {
  for (const trigger of turn.batch) {
    await recordUserTurn(db, {
      id: timeOrderedId(),
      scopeId: turn.scopeId,
      channelId: trigger.message.channelId,
      authorId: trigger.message.authorId,
      authorName: trigger.message.authorName,
      messageId: trigger.message.id,
      content: trigger.message.content,
    }).catch((error: unknown) =>
      turn.logger.warn({ err: error }, 'could not record the user turn'),
    );
  }
}
