import { timeOrderedId } from '../../../core/time-ordered-id.ts';
import {
  ApplicationCommandType,
  ContextMenuCommandBuilder,
  InteractionContextType,
  SlashCommandBuilder,
  type ChatInputCommandInteraction,
  type MessageContextMenuCommandInteraction,
} from 'discord.js';
import {
  pinnedTurns,
  setTurnPinned,
  unpinTurn,
  type PinnedTurn,
} from '../../../db/context-turn-repository.ts';
import { ensureScope } from '../../../db/scope-settings-repository.ts';
import { recordUserTurn } from '../../../db/turn-repository.ts';
import { holdsPermission } from '../command-access.ts';
import { deferIfSlow, respond } from '../command-replies.ts';
import { commandText } from '../command-text.ts';
import type { CommandContext, SlashCommand } from '../slash-command.ts';
import { CommandRefusal } from '../../i18n/member-text.ts';

const EXCERPT_LENGTH = 80;

/** The message menu command's name, as members see it in the "Apps" menu. */
const PIN_MENU_NAME = { en: 'Pin for Tomodachi', ja: 'Tomodachiにピン留め' } as const;

/** `/pins` and the menu command's texts, en and ja side by side. */
const text = commandText({
  en: {
    description: 'The messages I always keep in mind in this channel',
    list: 'Show the pinned messages',
    remove: 'Unpin a message (its number in /pins list)',
    number: 'The number shown by /pins list',
    header: '📌 Pinned in this channel (I always keep these in mind):',
    none: 'Nothing is pinned in this channel. Use “Pin for Tomodachi” in a message’s Apps menu.',
    auto: 'pinned automatically (start of the conversation)',
    no_such: 'There is no pin with that number: see /pins list.',
    not_yours: 'Only whoever pinned it, or a member with **Manage Messages**, can remove this pin.',
    removed: 'Pin {number} removed.',
    refused: 'Only the author of this message, or a member with **Manage Messages**, can pin it.',
    unknown_message: 'I cannot pin that message: it is not part of my conversation here.',
    pinned: '📌 Pinned: I will keep this message in mind in this channel.',
  },
  ja: {
    description: 'このチャンネルで常に覚えておくメッセージ',
    list: 'ピン留めされたメッセージを表示',
    remove: 'ピン留めを外す（/pins list の番号）',
    number: '/pins list に表示される番号',
    header: '📌 このチャンネルのピン留め（常に覚えておきます）：',
    none: 'このチャンネルにピン留めはありません。メッセージの「アプリ」メニューから「Tomodachiにピン留め」を使ってください。',
    auto: '自動でピン留め（会話の始め）',
    no_such: 'その番号のピン留めはありません。/pins list を見てください。',
    not_yours:
      'このピン留めを外せるのは、ピン留めした人か **メッセージの管理** 権限を持つメンバーだけです。',
    removed: 'ピン留め {number} を外しました。',
    refused:
      'このメッセージをピン留めできるのは、投稿者か **メッセージの管理** 権限を持つメンバーだけです。',
    unknown_message: 'そのメッセージはここでの会話の一部ではないので、ピン留めできません。',
    pinned: '📌 ピン留めしました：このチャンネルではこのメッセージを常に覚えておきます。',
  },
});

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
      const call = { interaction, context, pins };
      if (interaction.options.getSubcommand() === 'list') await listPins(call);
      else await removePin(call);
    },
  };
}

/** A `/pins` subcommand being answered, with the channel's pins in their listed order. */
interface PinsCall {
  interaction: ChatInputCommandInteraction;
  context: CommandContext;
  pins: readonly PinnedTurn[];
}

/** `/pins list`: the channel's pins, numbered as `/pins remove` takes them. */
async function listPins({ interaction, context, pins }: PinsCall): Promise<void> {
  if (pins.length === 0) return respond(interaction, text.get(context.locale, 'none'));
  const lines = pins.map((pin, index) => {
    const who = pin.pinnedBy === 'auto' ? text.get(context.locale, 'auto') : `<@${pin.pinnedBy}>`;
    return `${index + 1}. ${excerpt(pin.content)} — ${who}`;
  });
  return respond(interaction, [text.get(context.locale, 'header'), ...lines].join('\n'));
}

/** `/pins remove`: by whoever pinned it, or a member with Manage Messages. */
async function removePin({ interaction, context, pins }: PinsCall): Promise<void> {
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
