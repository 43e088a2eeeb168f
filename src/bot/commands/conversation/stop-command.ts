import { InteractionContextType, SlashCommandBuilder } from 'discord.js';
import type { Locale } from '../../i18n/locale.ts';
import { holdsPermission } from '../command-access.ts';
import { respond } from '../command-replies.ts';
import { commandText } from '../command-text.ts';
import type { SlashCommand } from '../slash-command.ts';

const text = commandText({
  en: {
    description: 'Stop the reply I am writing in this channel',
    stopped: '⏹️ Stopped. Nothing more of that reply will be sent.',
    'no-live-turn': 'I am not writing anything in this channel right now.',
    'not-requester':
      'Only the member I am answering or a moderator (**Manage Messages**) can stop this reply.',
    'already-stopping': 'That reply is already stopping.',
    unconfirmed:
      '⏳ Stop sent. Another of my processes is writing that reply and has not confirmed yet; it stops the reply when the stop reaches it.',
  },
  ja: {
    description: 'このチャンネルで書いている返信を止める',
    stopped: '⏹️ 止めました。この返信の続きは送信されません。',
    'no-live-turn': '今このチャンネルで書いている返信はありません。',
    'not-requester':
      'この返信を止められるのは、返信相手のメンバーかモデレーター（**メッセージの管理**）だけです。',
    'already-stopping': 'その返信はすでに止めています。',
    unconfirmed:
      '⏳ 停止を送りました。この返信は別のプロセスが書いていて、まだ確認が返ってきていません。停止が届きしだい返信を止めます。',
  },
});

/**
 * What `/stop` answers for a decision; the Stop button answers the same (a press on an ended
 * reply has its own "nothing to stop" instead of "not writing anything here"). `unconfirmed`:
 * the process streaming the reply did not answer in time (CrossProcessStops) — never "nothing
 * to stop" for a reply that is in fact live.
 */
export function stopReply(
  locale: Locale,
  outcome: 'stopped' | 'not-requester' | 'already-stopping' | 'unconfirmed',
): string {
  return text.get(locale, outcome);
}

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
      await respond(
        interaction,
        text.get(context.locale, decision.stopped ? 'stopped' : decision.reason),
      );
    },
  };
}
