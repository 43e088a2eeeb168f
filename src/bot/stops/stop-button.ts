import {
  DiscordAPIError,
  MessageFlags,
  PermissionFlagsBits,
  type ButtonInteraction,
} from 'discord.js';
import type { Logger } from '../../core/logger.ts';
import type { CrossProcessStops } from './cross-process-stops.ts';
import { parseStopButtonId } from '../delivery/stop-button-id.ts';
import { resolveLocale } from '../i18n/locale.ts';
import { stopAnswerText } from '../i18n/member-text.ts';

/**
 * Discord's answers to an acknowledgement that mean the press was handled elsewhere: Unknown
 * interaction (another process answered it, or its 3 s passed) and Interaction has already
 * been acknowledged. Any other failure (a 5xx, the network) is no such verdict.
 */
const HANDLED_ELSEWHERE_CODES: ReadonlySet<number | string> = new Set([10062, 40060]);

export function isStopButton(interaction: ButtonInteraction): boolean {
  return parseStopButtonId(interaction.customId) !== undefined;
}

/**
 * The Stop button under a streaming reply: `/stop` for that one turn. Discord is answered first
 * (its 3 s deadline; a stop streamed elsewhere may take the control bus's answer wait), then the
 * same rule decides as for `/stop` — a member the reply answers, or a moderator — wherever the
 * turn streams (CrossProcessStops). The presser alone is told what happened; a press on a reply
 * that has ended also takes the button away, if the end's own removal has not yet.
 */
export async function handleStopButton(
  interaction: ButtonInteraction,
  options: {
    stops: Pick<CrossProcessStops, 'stopByCommand'>;
    logger: Logger;
    ownerIds: readonly string[];
  },
): Promise<void> {
  const button = parseStopButtonId(interaction.customId);
  if (button === undefined) return;
  const acknowledged = await interaction.deferUpdate().then(
    () => true,
    (error: unknown) => {
      if (error instanceof DiscordAPIError && HANDLED_ELSEWHERE_CODES.has(error.code)) {
        options.logger.debug({ err: error }, 'stop press acknowledged elsewhere');
        return undefined;
      }
      // Not answered, but not handled elsewhere either: the stop still goes through.
      options.logger.warn({ err: error }, 'could not acknowledge a Stop press; stopping anyway');
      return false;
    },
  );
  if (acknowledged === undefined) return;
  const locale = resolveLocale(interaction.locale, interaction.guildLocale);
  const tell = (content: string) =>
    (acknowledged
      ? interaction.followUp({
          content,
          flags: MessageFlags.Ephemeral,
          allowedMentions: { parse: [] },
        })
      : interaction.reply({
          content,
          flags: MessageFlags.Ephemeral,
          allowedMentions: { parse: [] },
        })
    ).catch((error: unknown) => {
      options.logger.debug({ err: error }, 'could not tell the presser about their stop');
    });
  const decision = await options.stops.stopByCommand({
    channelId: interaction.channelId,
    authorId: interaction.user.id,
    authorIsModerator: isModerator(interaction, options.ownerIds),
    by: 'button',
    turnId: button.turnId,
  });
  if (decision.stopped) {
    options.logger.info({ turnId: decision.turnId }, 'stopped by the Stop button');
    await tell(stopAnswerText('stopped', locale));
    return;
  }
  if (decision.reason !== 'no-live-turn') {
    await tell(stopAnswerText(decision.reason, locale));
    return;
  }
  // Through the interaction (not the channel): this edit spends none of the channel's budget.
  await interaction
    .editReply({ components: [], allowedMentions: { parse: [], repliedUser: false } })
    .catch((error: unknown) => {
      options.logger.debug({ err: error }, 'stop button already gone');
    });
  await tell(stopAnswerText('finished', locale));
}

/** A moderator may stop anyone's reply: an owner, Manage Messages here, or anyone in a DM. */
function isModerator(interaction: ButtonInteraction, ownerIds: readonly string[]): boolean {
  if (ownerIds.includes(interaction.user.id)) return true;
  if (interaction.guildId === null) return true;
  return interaction.memberPermissions?.has(PermissionFlagsBits.ManageMessages) ?? false;
}
