import type { Client, Message } from 'discord.js';
import type { Clock } from '../../core/clock.ts';
import { UserFacingError } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';
import {
  RELEASED_CLAIM,
  releaseClaims,
  settleClaims,
  takeOverClaim,
  unsettledClaims,
  type UnsettledClaim,
} from '../../db/claim-repository.ts';
import type { Database } from '../../db/database.ts';
import { retryTransient } from '../../db/retry-transient.ts';
import { isTransientDatabaseError } from '../../db/transient-database-error.ts';
import { replyFailedFor, turnStartedFor } from '../../db/turn-repository.ts';
import type { DeliveryPort } from '../delivery/delivery-port.ts';
import { DiscordMessageTarget, isGoneOrClosed } from '../delivery/discord-message-target.ts';
import { postFailureNotice } from '../delivery/failure-notice.ts';
import { resolveLocale } from '../i18n/locale.ts';
import {
  cutReplyMessages,
  readReply,
  replyEnded,
  settleCutReply,
  type CutReplyOptions,
} from './cut-reply.ts';

/** How long a claim that could not be recovered is offered back through a database outage. */
const HAND_BACK_HOLD_MS = 5 * 60_000;

/** How far back a message is still owed an answer after a restart. */
export const RECOVERY_WINDOW_MS = 10 * 60_000;

export interface UnansweredRecoveryOptions {
  db: Database;
  client: Client;
  clock: Clock;
  logger: Logger;
  /** Where the "I was restarting" note is written, like every channel write. */
  delivery: DeliveryPort;
  /** Edits a character's message through its webhook (a cut reply's Stop button taken away). */
  webhookTarget?: CutReplyOptions['webhookTarget'] | undefined;
  instanceId: string;
  isAlive(instanceId: string): Promise<boolean>;
  /**
   * Whether a missing liveness lock may be taken as a death now (InstanceLiveness): not right
   * after a PostgreSQL restart, when live processes are still taking their locks again.
   */
  canJudgePeers(): Promise<boolean>;
  /**
   * A claim of a process that may be dead was left because judging is not safe yet (right after
   * a PostgreSQL restart): the caller runs the pass again soon, not a minute later.
   */
  onCannotJudgeYet?: () => void;
  /**
   * A claim taken over could not be recovered now, because of a database outage, and was
   * handed back once the database answered: the caller runs the pass again soon.
   */
  onHandedBack?: () => void;
  /** Ends the waiting of a hand-back through a database outage (shutdown). */
  signal?: AbortSignal;
  /** Answers a recovered message whose claim this process now holds. */
  answer(message: Message): void;
  /**
   * Whether this process may recover a message of `channelId` (a sharded process: only in its
   * shards' channels, which it alone can fetch). Default: every channel. May reject: a channel
   * gone from Discord is anyone's to settle; any other failure leaves the claim for a later pass.
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
    if (!(await mayRecoverIn(claim.channelId, options))) continue;
    const to = options.instanceId;
    if (!(await takeOverClaim(options.db, claim.messageId, { from: claim.instanceId, to })))
      continue;
    if (await recoverOrHandBack(claim, options)) recovered += 1;
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
  if (!(await options.canJudge())) {
    options.onCannotJudgeYet?.();
    return false;
  }
  return !(await options.isAlive(claim.instanceId));
}

/**
 * Whether this process may recover a message of the channel now. A channel Discord says is
 * gone (or closed to the bot) is anyone's to settle; a lookup that failed otherwise (a 5xx, the
 * network) says nothing about its shard: the claim stays with its owner until a later pass.
 */
async function mayRecoverIn(
  channelId: string,
  options: UnansweredRecoveryOptions,
): Promise<boolean> {
  if (options.owns === undefined) return true;
  try {
    return await options.owns(channelId);
  } catch (error) {
    if (isGoneOrClosed(error)) return true;
    options.logger.info({ err: error, channelId }, 'could not tell whose a channel is: later');
    return false;
  }
}

/**
 * Recovers a message whose claim this process just took over. When it cannot be done now (a
 * lookup failed in a way that may pass, or the channel's guild is another process's) the claim
 * is handed back, so a later pass or the right process answers it. True when recovered.
 */
async function recoverOrHandBack(
  claim: UnsettledClaim,
  options: UnansweredRecoveryOptions,
): Promise<boolean> {
  let outage = false;
  try {
    if (await recoverOne(claim, options)) return true;
  } catch (error) {
    outage = isTransientDatabaseError(error);
    options.logger.warn({ err: error, messageId: claim.messageId }, 'could not recover a message');
  }
  // Held by this live process, a claim no pass would take again: the hand-back waits out a
  // database outage (the likeliest reason the recovery failed). Only a shutdown ends the
  // wait, and then this process's death frees the claim for the next one.
  await retryTransient(() => releaseClaims(options.db, [claim.messageId], options.instanceId), {
    clock: options.clock,
    signal: options.signal,
    maxElapsedMs: HAND_BACK_HOLD_MS,
  }).then(
    // After a database outage, tried again soon; a failed Discord lookup waits for the next
    // regular pass (no warning every few seconds while Discord is down), and another shard's
    // message is left to that shard.
    () => (outage ? options.onHandedBack?.() : undefined),
    (error: unknown) => {
      options.logger.warn({ err: error, messageId: claim.messageId }, 'could not hand back');
    },
  );
  return false;
}

/** False when the message is not this process's to recover (its guild is not cached here). */
async function recoverOne(
  claim: UnsettledClaim,
  options: UnansweredRecoveryOptions,
): Promise<boolean> {
  const found = await lookUpMessage(options.client, claim);
  if (found === 'elsewhere') return false;
  if (found === 'gone') {
    await settleClaims(options.db, [claim.messageId]);
    return true;
  }
  await answerOrSettle(found, claim, options);
  return true;
}

/**
 * What stands in the channel is the truth: a reply delivered just before a crash may have no
 * record of its turn yet, and answering again would answer twice. No reply and no turn: it is
 * answered — unless a reply to another message carried it (its request showed it unanswered)
 * and stands: then it was answered in passing, or is told with that reply's own note. A reply
 * that had ended: recorded as it stands, nothing to tell — unless its turn ended it failed and
 * the restart beat the failure's notice. A reply cut off: recorded, and its member told (with
 * Retry) instead of repeating it.
 */
async function answerOrSettle(
  message: Message,
  claim: UnsettledClaim,
  options: UnansweredRecoveryOptions,
): Promise<void> {
  const botUserId = options.client.user?.id;
  const { reply: standing, told } =
    botUserId === undefined
      ? { reply: [], told: false }
      : await readReply(message, { botUserId, db: options.db });
  if (standing.length === 0 && !(await turnStartedFor(options.db, claim.messageId))) {
    if (
      botUserId !== undefined &&
      (await carryingReplyStands(message, claim, options.db, botUserId))
    ) {
      options.logger.info(
        { messageId: claim.messageId, channelId: claim.channelId, carriedBy: claim.carriedBy },
        'a reply delivered before a restart carried this message: answered in passing',
      );
      await settleClaims(options.db, [claim.messageId]);
    } else {
      options.answer(message);
    }
    return;
  }
  // Read before settling: settling takes the Stop button away. A reply that ended by failing
  // (its end written) whose notice a restart beat is told too: its member saw no Retry.
  const ended =
    replyEnded(standing) && (told || !(await replyFailedFor(options.db, claim.messageId)));
  if (botUserId !== undefined) await settleCutReply(message, { ...options, botUserId }, standing);
  const where = { messageId: claim.messageId, channelId: claim.channelId };
  if (ended) {
    options.logger.info(where, 'a reply delivered before a restart: recorded as it stands');
  } else if (message.channel.isSendable()) {
    options.logger.info(
      where,
      'a reply was cut off by a restart: the member is told, with a Retry button',
    );
    await postFailureNotice({
      error: new UserFacingError('note.restarted', {}, { retryable: true }),
      replyTo: message.id,
      writer: options.delivery.to(new DiscordMessageTarget(message.channel)),
      locale: resolveLocale(undefined, message.guild?.preferredLocale),
      logger: options.logger,
      logAsFailure: false,
    });
  }
  await settleClaims(options.db, [claim.messageId]);
}

/**
 * Whether the reply whose request carried the message (`carryClaims`) stands in the channel: its
 * first write came after the message was shown to the model.
 */
async function carryingReplyStands(
  message: Message,
  claim: UnsettledClaim,
  db: Database,
  botUserId: string,
): Promise<boolean> {
  if (claim.carriedBy === undefined) return false;
  const trigger = { id: claim.carriedBy, channel: message.channel };
  return (await cutReplyMessages(trigger, { botUserId, db })).length > 0;
}

/**
 * The claimed message, `gone` when Discord says it (or its channel) is gone or closed to the
 * bot, `elsewhere` when its guild is not cached here (another shard's, or not available now).
 * Throws on a failure that may pass.
 */
async function lookUpMessage(
  client: Client,
  claim: UnsettledClaim,
): Promise<Message | 'gone' | 'elsewhere'> {
  try {
    const channel =
      client.channels.cache.get(claim.channelId) ??
      (await client.channels.fetch(claim.channelId, { allowUnknownGuild: true, cache: false }));
    if (channel === null || !channel.isTextBased()) return 'gone';
    const guildId = 'guildId' in channel ? channel.guildId : null;
    if (guildId !== null && !client.guilds.cache.has(guildId)) return 'elsewhere';
    // A message's `channel` is read from the cache: a channel fetched uncached is fetched again.
    const cached =
      client.channels.cache.get(claim.channelId) ?? (await client.channels.fetch(claim.channelId));
    if (cached === null || !cached.isTextBased()) return 'gone';
    return await cached.messages.fetch({ message: claim.messageId, cache: false });
  } catch (error) {
    if (isGoneOrClosed(error)) return 'gone';
    throw error;
  }
}
