import { InteractionContextType, SlashCommandBuilder } from 'discord.js';
import { stopAnswerText } from '../../i18n/member-text.ts';
import { holdsPermission } from '../command-access.ts';
import { respond } from '../command-replies.ts';
import { commandText } from '../command-text.ts';
import type { SlashCommand } from '../slash-command.ts';

const text = commandText({
  en: { description: 'Stop the reply I am writing in this channel' },
  ja: { description: 'このチャンネルで書いている返信を止める' },
});

/**
 * `/stop`: stops the live turn in this channel for the member being answered, a moderator
 * (Manage Messages here) or an owner. The turn ends `stopped` with its partial text, exactly as
 * after a natural "stop"; no in-persona acknowledgement follows (this reply is the answer).
 * With several processes on one database, the one that claims the interaction may not be the
 * one streaming the reply: the stop then travels over the control bus (CrossProcessStops).
 */
export function stopCommand(): SlashCommand {
  const builder = new SlashCommandBuilder()
    .setName('stop')
    .setContexts(InteractionContextType.Guild, InteractionContextType.BotDM);
  return {
    definition: text.describe(builder, 'description').toJSON(),
    category: 'conversation',
    async execute(interaction, context) {
      const decision = await context.services.stops.stopByCommand({
        channelId: interaction.channelId,
        authorId: interaction.user.id,
        authorIsModerator: holdsPermission(interaction, context, 'ManageMessages'),
        by: 'command',
      });
      if (decision.stopped) context.logger.info({ turnId: decision.turnId }, 'stopped by /stop');
      // The Stop button answers the same (stop-button.ts); `unconfirmed`: the process streaming
      // the reply did not answer in time — never "nothing to stop" for a reply that is live.
      await respond(
        interaction,
        stopAnswerText(decision.stopped ? 'stopped' : decision.reason, context.locale),
      );
    },
  };
}
