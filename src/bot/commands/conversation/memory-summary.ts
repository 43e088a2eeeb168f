import { EmbedBuilder, type ChatInputCommandInteraction } from 'discord.js';
import { summaryOf } from '../../../db/summary-repository.ts';
import { deferIfSlow, respond } from '../command-replies.ts';
import type { CommandContext } from '../slash-command.ts';
import { memoryText as text } from './memory-texts.ts';

/** Discord's limit for an embed description. */
const DESCRIPTION_LIMIT = 4_096;

/**
 * `/memory summary`: the channel's rolling summary as the model receives it, with how
 * many turns it covers. Whoever can use the command here can read the channel it summarises.
 */
export async function showChannelSummary(
  interaction: ChatInputCommandInteraction,
  context: CommandContext,
): Promise<void> {
  await deferIfSlow(interaction);
  const summary = await summaryOf(context.services.db, interaction.channelId);
  if (summary === undefined) {
    await respond(interaction, text.get(context.locale, 'summaryNone'));
    return;
  }
  const content =
    summary.content.length <= DESCRIPTION_LIMIT
      ? summary.content
      : `${summary.content.slice(0, DESCRIPTION_LIMIT - 1)}…`;
  const embed = new EmbedBuilder()
    .setTitle(text.get(context.locale, 'summaryTitle'))
    .setDescription(content)
    .setFooter({
      text: text.get(context.locale, 'summaryCovers', { turns: summary.coveredTurns }),
    })
    .setTimestamp(summary.updatedAt);
  await respond(interaction, { embeds: [embed] });
}
