import { MessageFlags, PermissionFlagsBits, type ButtonInteraction } from 'discord.js';
import type { Logger } from '../../core/logger.ts';
import type { ScopeSettings } from '../../core/settings.ts';
import { timeOrderedId } from '../../core/time-ordered-id.ts';
import type { Database } from '../../db/database.ts';
import { claimMessage } from '../../db/claim-repository.ts';
import { RETRY_BUTTON_PREFIX } from '../delivery/failure-notice.ts';
import { resolveLocale } from '../i18n/locale.ts';
import { refusalText, retryRefusal, type Refusal } from '../i18n/member-text.ts';
import { toInboundMessage } from './message-intake.ts';
import type { DatabaseStep, RetryAdmission } from './message-router.ts';
import type { Trigger } from './trigger.ts';

export function isRetryButton(interaction: ButtonInteraction): boolean {
  return interaction.customId.startsWith(RETRY_BUTTON_PREFIX);
}

/**
 * The Retry button under a failure notice: the member who asked (or a moderator) re-asks the
 * same message with fresh context. Discord is answered first (its 3 s deadline; only one
 * process can acknowledge a press), then the member rate limit, the daily budget and the
 * channel's queue decide; a retry that cannot run is explained to the presser alone (in the
 * one voice's words), and the notice is removed only when the retry runs.
 */
export async function handleRetryButton(
  interaction: ButtonInteraction,
  options: {
    db: Database;
    logger: Logger;
    instanceId: string;
    botUserId: string;
    ownerIds: readonly string[];
    loadSettings(scopeId: string): Promise<ScopeSettings>;
    retry(trigger: Trigger, settings: ScopeSettings): Promise<RetryAdmission>;
    /** Holds a database step through a short outage (the router's); throws when it lasts. */
    databaseStep: DatabaseStep;
  },
): Promise<void> {
  const acknowledged = await interaction.deferUpdate().then(
    () => true,
    (error: unknown) => {
      // Most often another process answered this press first.
      options.logger.debug({ err: error }, 'retry press acknowledged elsewhere');
      return false;
    },
  );
  if (!acknowledged) return;
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
  const messageId = interaction.customId.slice(RETRY_BUTTON_PREFIX.length);
  const channel = interaction.channel;
  const original =
    channel === null ? undefined : await channel.messages.fetch(messageId).catch(() => undefined);
  if (original === undefined) return tell({ kind: 'retry_expired' });
  const isModerator =
    options.ownerIds.includes(interaction.user.id) ||
    (interaction.memberPermissions?.has(PermissionFlagsBits.ManageMessages) ?? false);
  if (original.author.id !== interaction.user.id && !isModerator) {
    return tell({ kind: 'retry_not_yours' });
  }
  const message = toInboundMessage(original, options.botUserId);
  const settings = await options.loadSettings(message.guildId ?? message.authorId);
  const admission = await options.retry(
    {
      message,
      reason: 'retry',
      memberPermissions: original.member?.permissionsIn(original.channelId).bitfield.toString(),
      isModerator: original.author.id === interaction.user.id ? false : isModerator,
    },
    settings,
  );
  if (admission.kind !== 'started') return tell(retryRefusal(admission));
  await interaction.message.delete().catch((error: unknown) => {
    options.logger.debug({ err: error }, 'failure notice already gone');
  });
}
