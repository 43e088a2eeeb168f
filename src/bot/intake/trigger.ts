import type { InboundMessage } from './inbound-message.ts';
import type { TriggerReason } from './trigger-detector.ts';

/** A message the bot decided to answer, with what the turn needs to know about its author. */
export interface Trigger {
  message: InboundMessage;
  reason: TriggerReason | 'retry';
  /** The author's permission bits in the channel (decimal string); undefined in DMs. */
  memberPermissions: string | undefined;
  /** May stop anyone's turn and manage others' replies (Manage Messages, or a bot owner). */
  isModerator: boolean;
}
