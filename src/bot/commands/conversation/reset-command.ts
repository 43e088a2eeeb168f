import {
  InteractionContextType,
  SlashCommandBuilder,
  type ChatInputCommandInteraction,
} from 'discord.js';
import { ensureScope } from '../../../db/scope-settings-repository.ts';
import { clearSummary } from '../../../db/summary-repository.ts';
import { setResetMarker } from '../../../db/turn-repository.ts';
import { resolveLocale } from '../../i18n/locale.ts';
import { holdsPermission } from '../command-access.ts';
import { deferIfSlow, respond } from '../command-replies.ts';
import { commandText } from '../command-text.ts';
import type { CommandContext, SlashCommand } from '../slash-command.ts';
import { CommandRefusal } from '../../i18n/member-text.ts';

const text = commandText({
  en: {
    description: 'Make me forget this channel’s conversation so far',
    done: '🧹 Fresh start: I no longer remember anything said in this channel before now. (Reset by <@{user}>.)',
    refused:
      'Only members with **Manage Messages** can reset this channel’s conversation (or the owner of this thread): it changes what I remember for everyone here.',
  },
  ja: {
    description: 'このチャンネルのこれまでの会話を忘れさせる',
    done: '🧹 リセットしました：このチャンネルでこれまでに話されたことは覚えていません。（<@{user}> がリセット）',
    refused:
      'このチャンネルの会話をリセットできるのは **メッセージの管理** 権限を持つメンバー（またはこのスレッドの作成者）だけです。ここにいる全員の会話に影響するためです。',
  },
});

/**
 * `/reset`: sets the channel's reset marker; the next turn sees nothing from before it, neither
 * stored turns nor the channel window. The notice is public (everyone here should know the bot
 * forgot) and pings no one.
 *
 * Who may reset: in a guild, members with Manage Messages in the channel (a reset changes what
 * the bot remembers for everyone there) and the owner of a thread (often a member's own
 * conversation with the bot); in DMs, the user; the bot's owners everywhere.
 */
export function resetCommand(): SlashCommand {
  const builder = new SlashCommandBuilder()
    .setName('reset')
    .setContexts(InteractionContextType.Guild, InteractionContextType.BotDM);
  return {
    definition: text.describe(builder, 'description').toJSON(),
    category: 'conversation',
    async execute(interaction, context) {
      if (!mayReset(interaction, context)) throw new CommandRefusal(text.refusal('refused'));
      await deferIfSlow(interaction, { ephemeral: false });
      const { db, settings } = context.services;
      await ensureScope(db, context.scope.id, context.scope.kind);
      await setResetMarker(db, {
        channelId: interaction.channelId,
        scopeId: context.scope.id,
        resetBy: interaction.user.id,
        // Discord's own clock (the interaction's snowflake), the clock the channel window's
        // message timestamps come from: a bot host whose clock runs behind cannot let the
        // messages just before the reset slip through.
        resetAt: new Date(interaction.createdTimestamp),
      });
      // The rolling summary goes with the history it summarised.
      await clearSummary(db, interaction.channelId);
      // A reply still being written would land after the marker, half of a forgotten
      // conversation: whoever may reset may also stop it.
      const stop = await context.services.stops.stopByCommand({
        channelId: interaction.channelId,
        authorId: interaction.user.id,
        authorIsModerator: true,
        by: 'reset',
      });
      if (stop.stopped) context.logger.info({ turnId: stop.turnId }, 'reset stopped a live reply');
      const scopeSettings = await settings.get(context.scope.id);
      const locale = resolveLocale(scopeSettings.language, interaction.guildLocale, context.locale);
      context.logger.info({ channelId: interaction.channelId }, 'conversation reset');
      await respond(interaction, text.get(locale, 'done', { user: interaction.user.id }), {
        ephemeral: false,
      });
    },
  };
}

function mayReset(interaction: ChatInputCommandInteraction, context: CommandContext): boolean {
  if (holdsPermission(interaction, context, 'ManageMessages')) return true;
  const channel = interaction.channel;
  return channel?.isThread() === true && channel.ownerId === interaction.user.id;
}
