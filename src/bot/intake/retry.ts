import {
  MessageFlags,
  PermissionFlagsBits,
  type ButtonInteraction,
  type Message,
} from 'discord.js';
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import type { ScopeSettings } from '../../core/settings.ts';
import { timeOrderedId } from '../../core/time-ordered-id.ts';
import { claimMessage } from '../../db/claim-repository.ts';
import type { Database } from '../../db/database.ts';
import { scopeOf, type InboundMessage } from '../client/inbound-message.ts';
import type { DeliveryPort } from '../delivery/delivery-port.ts';
import { DiscordMessageTarget } from '../delivery/discord-message-target.ts';
import { RETRY_BUTTON_PREFIX } from '../delivery/failure-notice.ts';
import { resolveLocale } from '../i18n/locale.ts';
import { refusalText, type Refusal } from '../i18n/member-text.ts';
import { dailyLimitsOf, type DailyBudget } from '../limits/daily-budget.ts';
import { budgetRefusal } from './budget-refusal.ts';
import type { MemberRateLimiter } from '../limits/member-rate-limiter.ts';
import { authorMember, type MemberStanding } from './accepted-message.ts';
import type { DatabaseStep } from './outage-hold.ts';

/** What became of a Retry press: it runs, or why it cannot (told to the presser alone). */
export type RetryAdmission =
  | { kind: 'started' }
  | { kind: 'rate_limited'; seconds: number }
  | { kind: 'budget'; refusal: Refusal }
  | { kind: 'busy' };

export function isRetryButton(interaction: ButtonInteraction): boolean {
  return interaction.customId.startsWith(RETRY_BUTTON_PREFIX);
}

/**
 * The Retry button under a failure notice: the member who asked (or a moderator) re-asks the
 * same message with fresh context. Discord is answered first (its 3 s deadline; only one
 * process can acknowledge a press), then the press is claimed (held through a short database
 * outage like a message), then the member rate limit, the daily budget and the channel's queue
 * decide (MessageRouter.retry); a retry that cannot run is explained to the presser alone (in
 * the one voice's words, i18n/member-text.ts), and the notice is removed only when it runs.
 */
export async function handleRetryButton(
  interaction: ButtonInteraction,
  options: {
    db: Database;
    logger: Logger;
    instanceId: string;
    ownerIds: readonly string[];
    retry(original: Message, author: MemberStanding): Promise<RetryAdmission>;
    /** Holds a database step through a short outage (the router's); throws when it lasts. */
    databaseStep: DatabaseStep;
    /** Where the failure notice is removed once the retry runs (the one write path). */
    delivery: DeliveryPort;
  },
): Promise<void> {
  if (!(await acknowledge(interaction, options.logger))) return;
  const locale = resolveLocale(interaction.locale, interaction.guildLocale);
  const tell = async (refusal: Refusal) => {
    await interaction.followUp({
      content: refusalText(refusal, locale),
      flags: MessageFlags.Ephemeral,
      allowedMentions: { parse: [] },
    });
  };
  // A press during a database outage waits for it (bounded) like a message does; when the
  // database stays away the presser is told, never left with a button that did nothing.
  let claimed: boolean;
  try {
    const claim = {
      key: `retry:${interaction.id}`,
      instanceId: options.instanceId,
      attempt: timeOrderedId(),
    };
    claimed = await options.databaseStep(() => claimMessage(options.db, claim));
  } catch (error) {
    options.logger.warn({ err: error }, 'could not take a Retry press');
    return tell({ kind: 'storage_trouble' });
  }
  if (!claimed) return;
  options.logger.debug({ interactionId: interaction.id }, 'retry pressed');
  try {
    await reAsk(interaction, { ...options, tell });
  } catch (error) {
    // A step after the claim failed (the database went away, Discord refused the fetch): the
    // press is ours, so its presser hears about it rather than a button that did nothing.
    options.logger.warn({ err: error }, 'could not run a Retry press');
    await tell({ kind: 'storage_trouble' });
  }
}

/** The steps after a press is claimed: the message, who may re-ask it, the admission, the notice. */
async function reAsk(
  interaction: ButtonInteraction,
  options: {
    logger: Logger;
    ownerIds: readonly string[];
    retry(original: Message, author: MemberStanding): Promise<RetryAdmission>;
    delivery: DeliveryPort;
    tell: (refusal: Refusal) => Promise<void>;
  },
): Promise<void> {
  const { tell } = options;
  const messageId = interaction.customId.slice(RETRY_BUTTON_PREFIX.length);
  const channel = interaction.channel;
  const original =
    channel === null ? undefined : await channel.messages.fetch(messageId).catch(() => undefined);
  if (original === undefined) return tell({ kind: 'retry_expired' });
  const isModerator =
    options.ownerIds.includes(interaction.user.id) ||
    (interaction.memberPermissions?.has(PermissionFlagsBits.ManageMessages) ?? false);
  const ownMessage = original.author.id === interaction.user.id;
  if (!ownMessage && !isModerator) return tell({ kind: 'retry_not_yours' });
  const member = await authorMember(original);
  const admission = await options.retry(original, {
    permissions: member?.permissionsIn(original.channelId).bitfield.toString(),
    // Who may stop the re-asked reply besides its author: the moderator who pressed.
    isModerator: !ownMessage && isModerator,
  });
  if (admission.kind !== 'started') return tell(retryRefusal(admission));
  if (!original.channel.isSendable()) return;
  const removed = await options.delivery
    .to(new DiscordMessageTarget(original.channel))
    .remove(interaction.message.id);
  if (removed.kind === 'failed') {
    options.logger.debug({ err: removed.failure }, 'failure notice already gone');
  }
}

/** Answers Discord first; false when another process acknowledged this press. */
async function acknowledge(interaction: ButtonInteraction, logger: Logger): Promise<boolean> {
  return interaction.deferUpdate().then(
    () => true,
    (error: unknown) => {
      // Most often another process answered this press first.
      logger.debug({ err: error }, 'retry press acknowledged elsewhere');
      return false;
    },
  );
}

export interface RetryAdmissionOptions {
  rateLimiter: MemberRateLimiter;
  dailyBudget: DailyBudget;
  databaseStep: DatabaseStep;
  clock: Clock;
  /** Gives the message its facts and hands it to its channel's queue; false when refused. */
  submit(): Promise<boolean>;
}

/**
 * A Retry press counts against the member's rate and the scope's daily budget like the message
 * did, and waits its turn in the channel's queue.
 */
export async function admitRetry(
  message: InboundMessage,
  settings: ScopeSettings,
  options: RetryAdmissionOptions,
): Promise<RetryAdmission> {
  const { databaseStep, rateLimiter, dailyBudget } = options;
  const scopeId = scopeOf(message).id;
  const now = options.clock.now();
  const verdict = await databaseStep(() =>
    rateLimiter.take({
      // Only the process that claimed the press gets here: a key of its own is enough.
      key: `retry:${message.id}:${now}`,
      scopeId,
      memberId: message.authorId,
      perMinute: settings.memberTurnsPerMinute,
      now,
    }),
  );
  if (!verdict.allowed) {
    return { kind: 'rate_limited', seconds: Math.ceil(verdict.retryAfterMs / 1000) };
  }
  const spent = await databaseStep(() =>
    dailyBudget.refusal(scopeId, dailyLimitsOf(settings), message.authorId),
  );
  if (spent !== undefined) return { kind: 'budget', refusal: budgetRefusal(spent, now) };
  return (await options.submit()) ? { kind: 'started' } : { kind: 'busy' };
}

/** A Retry press the router would not run, as the refusal its presser is told. */
export function retryRefusal(admission: Exclude<RetryAdmission, { kind: 'started' }>): Refusal {
  switch (admission.kind) {
    case 'rate_limited':
      return { kind: 'member_rate_limited', seconds: admission.seconds };
    case 'budget':
      return admission.refusal;
    case 'busy':
      return { kind: 'retry_busy' };
  }
}
