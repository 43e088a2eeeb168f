import { timeOrderedId } from '../../../core/time-ordered-id.ts';
import {
  ApplicationCommandType,
  ContextMenuCommandBuilder,
  InteractionContextType,
  SlashCommandBuilder,
  type MessageContextMenuCommandInteraction,
} from 'discord.js';
import { pinnedTurns, setTurnPinned, unpinTurn } from '../../../db/context-turn-repository.ts';
import { ensureScope } from '../../../db/scope-settings-repository.ts';
import { recordUserTurn } from '../../../db/turn-repository.ts';
import { holdsPermission } from '../command-access.ts';
import { CommandRefusal, deferIfSlow, respond } from '../command-replies.ts';
import type { CommandContext, SlashCommand } from '../slash-command.ts';
import { PIN_MENU_NAME, pinsText as text } from './pins-texts.ts';

const EXCERPT_LENGTH = 80;

/**
 * `/pins list | remove` and the message menu command "Pin for Tomodachi": pinned turns always
 * enter the context of their channel (within the pinned share of the budget); the first three
 * member turns after a /reset are pinned automatically. The author of a message or a member
 * with Manage Messages may pin it; whoever pinned a turn, or a moderator, may remove the pin.
 */
export function pinsCommand(): SlashCommand {
  const builder = new SlashCommandBuilder()
    .setName('pins')
    .setContexts(InteractionContextType.Guild, InteractionContextType.BotDM)
    .addSubcommand((sub) => text.describe(sub.setName('list'), 'list'))
    .addSubcommand((sub) =>
      text
        .describe(sub.setName('remove'), 'remove')
        .addIntegerOption((option) =>
          text.describe(option.setName('number').setRequired(true).setMinValue(1), 'number'),
        ),
    );
  const menu = new ContextMenuCommandBuilder()
    .setName(PIN_MENU_NAME.en)
    .setNameLocalizations({ ja: PIN_MENU_NAME.ja })
    .setType(ApplicationCommandType.Message)
    .setContexts(InteractionContextType.Guild, InteractionContextType.BotDM);
  return {
    definition: text.describe(builder, 'description').toJSON(),
    category: 'conversation',
    messageMenu: { definition: menu.toJSON(), execute: pinMessage },
    async execute(interaction, context) {
      await deferIfSlow(interaction);
      const pins = await pinnedTurns(context.services.db, interaction.channelId);
      if (interaction.options.getSubcommand() === 'list') {
        if (pins.length === 0) return respond(interaction, text.get(context.locale, 'none'));
        const lines = pins.map((pin, index) => {
          const who =
            pin.pinnedBy === 'auto' ? text.get(context.locale, 'auto') : `<@${pin.pinnedBy}>`;
          return `${index + 1}. ${excerpt(pin.content)} — ${who}`;
        });
        return respond(interaction, [text.get(context.locale, 'header'), ...lines].join('\n'));
      }
      const number = interaction.options.getInteger('number', true);
      const pin = pins[number - 1];
      if (pin === undefined) throw new CommandRefusal(text.refusal('no_such'));
      if (
        pin.pinnedBy !== interaction.user.id &&
        !holdsPermission(interaction, context, 'ManageMessages')
      )
        throw new CommandRefusal(text.refusal('not_yours'));
      await unpinTurn(context.services.db, { channelId: interaction.channelId, turnId: pin.id });
      context.logger.info({ turnId: pin.id }, 'pin removed');
      await respond(interaction, text.get(context.locale, 'removed', { number }));
    },
  };
}

async function pinMessage(
  interaction: MessageContextMenuCommandInteraction,
  context: CommandContext,
): Promise<void> {
  const message = interaction.targetMessage;
  const isAuthor = message.author.id === interaction.user.id;
  if (!isAuthor && !holdsPermission(interaction, context, 'ManageMessages'))
    throw new CommandRefusal(text.refusal('refused'));
  await deferIfSlow(interaction);
  const { db } = context.services;
  const pinned = await setTurnPinned(db, {
    channelId: interaction.channelId,
    messageId: message.id,
    pinnedBy: interaction.user.id,
  });
  if (!pinned) {
    if (message.author.id === interaction.client.user.id || message.content.trim() === '')
      throw new CommandRefusal(text.refusal('unknown_message'));
    // A member message the bot never answered: stored now, as a pinned member turn.
    await ensureScope(db, context.scope.id, context.scope.kind);
    await recordUserTurn(db, {
      id: timeOrderedId(),
      scopeId: context.scope.id,
      channelId: interaction.channelId,
      authorId: message.author.id,
      authorName: message.member?.displayName ?? message.author.displayName,
      messageId: message.id,
      content: message.content,
      pinnedBy: interaction.user.id,
    });
  }
  context.logger.info({ messageId: message.id }, 'message pinned');
  await respond(interaction, text.get(context.locale, 'pinned'));
}

function excerpt(content: string): string {
  const line = content.replace(/\s+/g, ' ').trim();
  const short = line.length > EXCERPT_LENGTH ? `${line.slice(0, EXCERPT_LENGTH - 1)}…` : line;
  return `“${short.replace(/[`*_~|]/g, '')}”`;
}
