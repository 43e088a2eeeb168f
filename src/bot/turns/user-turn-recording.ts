import type { UserTurnInput } from '../../db/turn-repository.ts';
import type { AcceptedMessage } from '../intake/accepted-message.ts';

/**
 * The members' messages of a batch as the user turns to store, in order, under the ids intake
 * minted (a scene's next turn answers one recorded already: none for it). The journal writes
 * them with the reply's opening (DatabaseTurnJournal.begin).
 */
export function userTurnsOf(batch: readonly AcceptedMessage[]): UserTurnInput[] {
  return batch
    .filter(({ reason }) => reason !== 'scene')
    .map(({ message, recordId, facts }) => ({
      id: recordId,
      scopeId: facts.scope.id,
      channelId: message.channelId,
      authorId: message.authorId,
      authorName: message.authorName,
      messageId: message.id,
      content: message.content,
    }));
}
