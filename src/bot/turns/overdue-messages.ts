import { UserFacingError } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';
import type { DeliveryPort } from '../delivery/delivery-port.ts';
import { postFailureNotice } from '../delivery/failure-notice.ts';
import type { AcceptedMessage } from '../intake/accepted-message.ts';
import type { OverdueReason } from './channel-turn-scheduler.ts';

/**
 * What the watchdog does with messages that waited too long for their reply to begin: the
 * reason is logged (what they waited behind, for how long), each member is told with a Retry
 * button, and their claims are settled — they were told, nothing more is owed.
 */
export function tellOverdue(options: {
  delivery: DeliveryPort;
  logger: Logger;
  settle(messageIds: readonly string[]): void;
}): (channelId: string, overdue: readonly AcceptedMessage[], reason: OverdueReason) => void {
  return (channelId, overdue, reason) => {
    const messageIds = overdue.map((accepted) => accepted.message.id);
    options.logger.warn(
      { channelId, messageIds, ...reason },
      reason.kind === 'waiting'
        ? 'a message waited too long behind the live turn: told its member'
        : 'a turn did not reach its model call in time: abandoned, its members told',
    );
    options.settle(messageIds);
    for (const accepted of overdue) {
      void postFailureNotice({
        error: new UserFacingError('note.overdue', {}, { retryable: true }),
        replyTo: accepted.message.id,
        writer: options.delivery.to(accepted.facts.place.target),
        locale: accepted.facts.locale,
        logger: options.logger,
      });
    }
  };
}
