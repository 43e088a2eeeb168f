import { MessageFlags, PermissionFlagsBits, type ButtonInteraction } from 'discord.js';
import type { Logger } from '../core/logger.ts';
import type { ScopeSettings } from '../core/settings.ts';
import type { Database } from '../db/database.ts';
import { claimMessage } from '../db/claim-repository.ts';
import { resolveLocale } from './i18n/locale.ts';
import { translate } from './i18n/messages.ts';
import { toInboundMessage } from './message-intake.ts';
import type { Trigger } from './trigger.ts';
import { RETRY_BUTTON_PREFIX } from './failure-notice.ts';

export function isRetryButton(interaction: ButtonInteraction): boolean {
  return interaction.customId.startsWith(RETRY_BUTTON_PREFIX);
}

/**
 * The Retry button under a failure notice (seed 004's re-ask): the member who asked (or a
 * moderator) re-asks the same message with fresh context; the notice is removed.
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
    submit(trigger: Trigger, settings: ScopeSettings): void;
  },
): Promise<void> {
  const messageId = interaction.customId.slice(RETRY_BUTTON_PREFIX.length);
  if (!(await claimMessage(options.db, `retry:${interaction.id}`, options.instanceId))) return;
  const locale = resolveLocale(interaction.locale, interaction.guildLocale);
  const channel = interaction.channel;
  const original =
    channel === null ? undefined : await channel.messages.fetch(messageId).catch(() => undefined);
  if (original === undefined) {
    await interaction.reply({
      content: translate(locale, 'note.retry_expired'),
      flags: MessageFlags.Ephemeral,
    });
    return;
  }
  const isModerator =
    options.ownerIds.includes(interaction.user.id) ||
    (interaction.memberPermissions?.has(PermissionFlagsBits.ManageMessages) ?? false);
  if (original.author.id !== interaction.user.id && !isModerator) {
    await interaction.reply({
      content: translate(locale, 'note.retry_not_yours'),
      flags: MessageFlags.Ephemeral,
    });
    return;
  }
  await interaction.deferUpdate();
  await interaction.message.delete().catch((error: unknown) => {
    options.logger.debug({ err: error }, 'failure notice already gone');
  });
  const message = toInboundMessage(original, options.botUserId);
  const settings = await options.loadSettings(message.guildId ?? message.authorId);
  options.submit(
    {
      message,
      reason: 'retry',
      memberPermissions: original.member?.permissionsIn(original.channelId).bitfield.toString(),
      isModerator: original.author.id === interaction.user.id ? false : isModerator,
    },
    settings,
  );
}
