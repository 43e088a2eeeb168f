import {
  ApplicationIntegrationType,
  ChannelType,
  InteractionContextType,
  SlashCommandBuilder,
  type ChatInputCommandInteraction,
} from 'discord.js';
import { permissionBit } from '../command-access.ts';
import { commandText } from '../command-text.ts';
import { respond } from '../command-replies.ts';
import type { CommandContext, SlashCommand } from '../slash-command.ts';
import { requireGuild } from './guild-only.ts';
import { currentSettings, saveSettings } from './settings-writes.ts';
import { CommandRefusal } from '../../i18n/member-text.ts';

/** Channels where the bot can hold a conversation (as src/bot/message-intake.ts accepts them). */
const TEXT_CHANNEL_TYPES = [
  ChannelType.GuildText,
  ChannelType.GuildAnnouncement,
  ChannelType.PublicThread,
  ChannelType.PrivateThread,
  ChannelType.AnnouncementThread,
] as const;
/** Each one answers every message posted there: a cap keeps a server's bill in sight. */
const MAX_CHANNELS = 25;
const MAX_EVERY = 1_000;

const text = commandText({
  en: {
    description: 'Channels where I answer every message, without a mention',
    'add.description': 'Answer every message in this channel',
    'remove.description': 'Stop answering every message in this channel',
    'list.description': 'Where I answer without a mention',
    'every.description': 'Answer every Nth message in each channel (0 turns it off)',
    channel: 'A text channel or thread',
    n: 'Answer one message in this many; 0 is off',
    added: 'I will answer every message in <#{channel}>.',
    removed: 'I no longer answer every message in <#{channel}>.',
    duplicate: 'I already answer every message in <#{channel}>.',
    missing: '<#{channel}> is not an auto-reply channel.',
    full: 'There are already {max} auto-reply channels; remove one first.',
    every_on: 'I will answer one message in {n} in each channel, mention or not.',
    every_off: 'I no longer answer every Nth message.',
    list_channels: '**Auto-reply channels**: {channels}',
    list_every: 'In every channel: one message in {n}.',
    none: 'I answer only when mentioned, replied to, or called by a trigger word here.',
  },
  ja: {
    description: 'メンションなしですべてのメッセージに返信するチャンネル',
    'add.description': 'このチャンネルのすべてのメッセージに返信する',
    'remove.description': 'このチャンネルのすべてのメッセージへの返信をやめる',
    'list.description': 'メンションなしで返信する場所',
    'every.description': '各チャンネルでN件ごとに返信する（0でオフ）',
    channel: 'テキストチャンネルまたはスレッド',
    n: '何件に1件返信するか。0でオフ',
    added: '<#{channel}> のすべてのメッセージに返信します。',
    removed: '<#{channel}> のすべてのメッセージへの返信をやめました。',
    duplicate: '<#{channel}> ではすでにすべてのメッセージに返信しています。',
    missing: '<#{channel}> は自動返信チャンネルではありません。',
    full: '自動返信チャンネルはすでに{max}個あります。先に1つ削除してください。',
    every_on: '各チャンネルで、メンションの有無にかかわらず{n}件に1件返信します。',
    every_off: 'N件ごとの返信をやめました。',
    list_channels: '**自動返信チャンネル**：{channels}',
    list_every: 'すべてのチャンネル：{n}件に1件。',
    none: 'ここではメンション、返信、トリガーワードのときだけ返信します。',
  },
});

/** `/autoreply add | remove | list | every` (Manage Server, guilds only). */
export function autoReplyCommand(): SlashCommand {
  const builder = text
    .describe(new SlashCommandBuilder().setName('autoreply'), 'description')
    .setDefaultMemberPermissions(permissionBit('ManageGuild'))
    .setContexts(InteractionContextType.Guild)
    .setIntegrationTypes(ApplicationIntegrationType.GuildInstall);
  for (const action of ['add', 'remove'] as const) {
    builder.addSubcommand((sub) =>
      text.describe(sub.setName(action), `${action}.description`).addChannelOption((option) =>
        text
          .describe(option.setName('channel'), 'channel')
          .setRequired(true)
          .addChannelTypes(...TEXT_CHANNEL_TYPES),
      ),
    );
  }
  builder
    .addSubcommand((sub) => text.describe(sub.setName('list'), 'list.description'))
    .addSubcommand((sub) =>
      text
        .describe(sub.setName('every'), 'every.description')
        .addIntegerOption((option) =>
          text
            .describe(option.setName('n'), 'n')
            .setRequired(true)
            .setMinValue(0)
            .setMaxValue(MAX_EVERY),
        ),
    );
  return {
    definition: builder.toJSON(),
    category: 'config',
    async execute(interaction, context) {
      requireGuild(context);
      const action = interaction.options.getSubcommand();
      if (action === 'add' || action === 'remove')
        await changeChannels(interaction, context, action);
      else if (action === 'every') await setEvery(interaction, context);
      else await listAutoReply(interaction, context);
    },
  };
}

async function changeChannels(
  interaction: ChatInputCommandInteraction,
  context: CommandContext,
  action: 'add' | 'remove',
): Promise<void> {
  const { locale } = context;
  const channel = interaction.options.getChannel('channel', true, [...TEXT_CHANNEL_TYPES]).id;
  const current = await currentSettings(interaction, context);
  const listed = current.autoReplyChannelIds.includes(channel);
  if (action === 'add' && listed) throw new CommandRefusal(text.refusal('duplicate', { channel }));
  if (action === 'remove' && !listed)
    throw new CommandRefusal(text.refusal('missing', { channel }));
  if (action === 'add' && current.autoReplyChannelIds.length >= MAX_CHANNELS)
    throw new CommandRefusal(text.refusal('full', { max: MAX_CHANNELS }));
  const autoReplyChannelIds =
    action === 'add'
      ? [...current.autoReplyChannelIds, channel]
      : current.autoReplyChannelIds.filter((id) => id !== channel);
  await saveSettings(interaction, context, { autoReplyChannelIds }, current);
  await respond(interaction, text.get(locale, action === 'add' ? 'added' : 'removed', { channel }));
}

async function setEvery(
  interaction: ChatInputCommandInteraction,
  context: CommandContext,
): Promise<void> {
  const n = interaction.options.getInteger('n', true);
  await saveSettings(interaction, context, { autoReplyEveryN: n === 0 ? undefined : n });
  await respond(
    interaction,
    n === 0 ? text.get(context.locale, 'every_off') : text.get(context.locale, 'every_on', { n }),
  );
}

async function listAutoReply(
  interaction: ChatInputCommandInteraction,
  context: CommandContext,
): Promise<void> {
  const { locale } = context;
  const settings = await context.services.settings.get(context.scope.id);
  const lines: string[] = [];
  if (settings.autoReplyChannelIds.length > 0) {
    const channels = settings.autoReplyChannelIds.map((id) => `<#${id}>`).join(', ');
    lines.push(text.get(locale, 'list_channels', { channels }));
  }
  const every = settings.autoReplyEveryN;
  if (every !== undefined && every > 0) lines.push(text.get(locale, 'list_every', { n: every }));
  await respond(interaction, lines.length === 0 ? text.get(locale, 'none') : lines.join('\n'));
}
