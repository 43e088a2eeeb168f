import {
  DiscordAPIError,
  MessageFlags,
  PermissionFlagsBits,
  type ButtonInteraction,
} from 'discord.js';
import type { Logger } from '../../core/logger.ts';
import type { CrossProcessStops } from './cross-process-stops.ts';
import { resolveLocale } from '../i18n/locale.ts';
import { stopAnswerText } from '../i18n/member-text.ts';

/**
 * The Stop button's custom id: this prefix, then the id of the live turn it stops (the one the
 * StopRegistry knows, whichever process streams it). The channel comes with the press itself,
 * so the id names one reply: a press after that reply ended stops nothing, even when a newer
 * turn streams in the channel. Not `stop:` — a custom id `<command>:…` belongs to that slash
 * command's own components (CommandRouter), and `/stop` exists.
 */
export const STOP_BUTTON_PREFIX = 'stop-reply:';

/**
 * Discord's answers to an acknowledgement that mean the press was handled elsewhere: Unknown
 * interaction (another process answered it, or its 3 s passed) and Interaction has already
 * been acknowledged. Any other failure (a 5xx, the network) is no such verdict.
 */
const HANDLED_ELSEWHERE_CODES: ReadonlySet<number | string> = new Set([10062, 40060]);

/** Discord's limit on a component's custom id. */
const CUSTOM_ID_MAX_CHARACTERS = 100;

/** What a live turn id may be: printable and short enough for the control bus and Discord. */
const TURN_ID_PATTERN = /^[\w-]{1,80}$/;

export function stopButtonId(turnId: string): string {
  if (!TURN_ID_PATTERN.test(turnId)) throw new Error(`not a turn id: ${turnId}`);
  return `${STOP_BUTTON_PREFIX}${turnId}`;
}

/** The turn a Stop button names, or undefined when the custom id is not a Stop button's. */
export function parseStopButtonId(customId: string): { turnId: string } | undefined {
  if (customId.length > CUSTOM_ID_MAX_CHARACTERS || !customId.startsWith(STOP_BUTTON_PREFIX)) {
    return undefined;
  }
  const turnId = customId.slice(STOP_BUTTON_PREFIX.length);
  return TURN_ID_PATTERN.test(turnId) ? { turnId } : undefined;
}

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
