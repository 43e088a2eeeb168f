import type { Logger } from '../../core/logger.ts';
import type { Database } from '../../db/database.ts';
import { recordUserTurn } from '../../db/turn-repository.ts';
import type { AcceptedMessage } from '../intake/accepted-message.ts';

/**
 * Stores the members' messages of a batch as user turns, in order, under the ids intake minted
 * (a scene's next turn answers one recorded already).
 * Never throws: a turn that could not be stored is logged, and the reply goes on without it.
 */
export async function recordUserTurns(
  db: Database,
  turn: { batch: readonly AcceptedMessage[]; logger: Logger },
): Promise<void> {
  for (const { message, recordId, facts, reason } of turn.batch) {
    // A scene's later turns answer a message already recorded.
    if (reason === 'scene') continue;
    await recordUserTurn(db, {
      id: recordId,
      scopeId: facts.scope.id,
      channelId: message.channelId,
      authorId: message.authorId,
      authorName: message.authorName,
      messageId: message.id,
      content: message.content,
    }).catch((error: unknown) =>
      turn.logger.warn({ err: error }, 'could not record the user turn'),
    );
  }
}
