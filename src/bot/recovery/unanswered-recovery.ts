import type { Client, Message } from 'discord.js';
import type { Clock } from '../../core/clock.ts';
import { UserFacingError } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';
import {
  RELEASED_CLAIM,
  settleClaims,
  takeOverClaim,
  unsettledClaims,
  type UnsettledClaim,
} from '../../db/claim-repository.ts';
import type { Database } from '../../db/database.ts';
import { turnStartedFor } from '../../db/turn-repository.ts';
import type { DeliveryPort } from '../delivery/delivery-port.ts';
import { DiscordMessageTarget } from '../delivery/discord-message-target.ts';
import { postFailureNotice } from '../delivery/failure-notice.ts';
import { resolveLocale } from '../i18n/locale.ts';

/** How far back a message is still owed an answer after a restart. */
export const RECOVERY_WINDOW_MS = 10 * 60_000;

export interface UnansweredRecoveryOptions {
  db: Database;
  client: Client;
  clock: Clock;
  logger: Logger;
  /** Where the "I was restarting" note is written, like every channel write. */
  delivery: DeliveryPort;
  instanceId: string;
  isAlive(instanceId: string): Promise<boolean>;
  /**
   * Whether a missing liveness lock may be taken as a death now (InstanceLiveness): not right
   * after a PostgreSQL restart, when live processes are still taking their locks again.
   */
  canJudgePeers(): Promise<boolean>;
  /** Answers a recovered message whose claim this process now holds. */
  answer(message: Message): void;
  /**
   * Whether this process may recover a message of `channelId` (a sharded process: only in its
   * shards' channels, which it alone can fetch). Default: every channel.
   */
  owns?: (channelId: string) => Promise<boolean>;
}

/**
 * Keeps the promise across restarts: member messages claimed in the last ten minutes and never
 * settled belong to a process that stopped (SIGKILL, crash) or were handed back at shutdown.
 * Each is taken over (one process wins) and either answered — its turn never started — or,
 * when its reply was cut off by the restart, gets a short note with a Retry button.
 */
export async function recoverUnanswered(options: UnansweredRecoveryOptions): Promise<number> {
  const since = new Date(options.clock.now() - RECOVERY_WINDOW_MS);
  let recovered = 0;
  // Asked once per pass, and only when a claim of another running-or-dead process is found.
  let judging: Promise<boolean> | undefined;
  const canJudge = () => (judging ??= options.canJudgePeers());
  for (const claim of await unsettledClaims(options.db, since)) {
    if (!(await isOrphaned(claim, { ...options, canJudge }))) continue;
    if (options.owns !== undefined && !(await options.owns(claim.channelId))) continue;
    const to = options.instanceId;
    if (!(await takeOverClaim(options.db, claim.messageId, { from: claim.instanceId, to })))
      continue;
    try {
      await recoverOne(claim, options);
      recovered += 1;
    } catch (error) {
      options.logger.warn(
        { err: error, messageId: claim.messageId },
        'could not recover a message',
      );
    }
  }
  if (recovered > 0)
    options.logger.info({ messages: recovered }, 'answered messages left by a restart');
  return recovered;
}

/**
 * Handed back at shutdown, or held by a process whose liveness lock is gone — judged only when
 * judging is safe: a peer that is re-taking its lock after a restart is alive, and answering
 * its messages here would answer them twice.
 */
async function isOrphaned(
  claim: UnsettledClaim,
  options: UnansweredRecoveryOptions & { canJudge(): Promise<boolean> },
): Promise<boolean> {
  if (claim.instanceId === options.instanceId) return false;
  if (claim.instanceId === RELEASED_CLAIM) return true;
  return (await options.canJudge()) && !(await options.isAlive(claim.instanceId));
}

async function recoverOne(
  claim: UnsettledClaim,
  options: UnansweredRecoveryOptions,
): Promise<void> {
  const message = await fetchMessage(options.client, claim);
  if (message === undefined) {
    await settleClaims(options.db, [claim.messageId]);
    return;
  }
  if (!(await turnStartedFor(options.db, claim.messageId))) {
    options.answer(message);
    return;
  }
  // Part of a reply may already stand in the channel: say what happened instead of repeating it.
  if (!message.channel.isSendable()) return;
  await postFailureNotice({
    error: new UserFacingError('note.restarted', {}, { retryable: true }),
    replyTo: message.id,
    writer: options.delivery.to(new DiscordMessageTarget(message.channel)),
    locale: resolveLocale(undefined, message.guild?.preferredLocale),
    logger: options.logger,
  });
  await settleClaims(options.db, [claim.messageId]);
}

async function fetchMessage(client: Client, claim: UnsettledClaim): Promise<Message | undefined> {
  const channel = await client.channels.fetch(claim.channelId).catch(() => null);
  if (channel === null || !channel.isTextBased()) return undefined;
  return channel.messages.fetch(claim.messageId).catch(() => undefined);
}
