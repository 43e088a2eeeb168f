import {
  ApplicationIntegrationType,
  ChannelType,
  InteractionContextType,
  PermissionFlagsBits,
  SlashCommandBuilder,
  type ChatInputCommandInteraction,
  type GuildMember,
  type VoiceBasedChannel,
} from 'discord.js';
import { CommandRefusal } from '../../i18n/member-text.ts';
import type { VoiceChannels } from '../../voice/voice-channels.ts';
import { holdsPermission } from '../command-access.ts';
import { deferIfSlow, respond } from '../command-replies.ts';
import { requireGuild } from '../config/guild-only.ts';
import type { CommandContext, SlashCommand } from '../slash-command.ts';
import { voiceText as text } from './voice-texts.ts';

type Handler = (
  interaction: ChatInputCommandInteraction,
  context: CommandContext,
  voice: VoiceChannels,
) => Promise<void>;

/**
 * `/voice join | leave | status` (guilds only). A member brings the bot into the voice channel
 * they are in, and anyone in the bot's channel sends it away; elsewhere it takes Move Members,
 * as moving someone else would. The bot needs Connect and Speak there.
 */
export function voiceCommand(): SlashCommand {
  const builder = text
    .describe(new SlashCommandBuilder().setName('voice'), 'description')
    .setContexts(InteractionContextType.Guild)
    .setIntegrationTypes(ApplicationIntegrationType.GuildInstall)
    .addSubcommand((sub) =>
      text
        .describe(sub.setName('join'), 'join.description')
        .addChannelOption((option) =>
          text
            .describe(option.setName('channel'), 'channel')
            .addChannelTypes(ChannelType.GuildVoice, ChannelType.GuildStageVoice),
        ),
    )
    .addSubcommand((sub) => text.describe(sub.setName('leave'), 'leave.description'))
    .addSubcommand((sub) => text.describe(sub.setName('status'), 'status.description'));
  const handlers: Readonly<Record<string, Handler>> = { join, leave, status };
  return {
    definition: builder.toJSON(),
    category: 'conversation',
    async execute(interaction, context) {
      requireGuild(context);
      const voice = context.services.voice;
      if (voice === undefined) throw new CommandRefusal(text.refusal('off'));
      const handler = handlers[interaction.options.getSubcommand()];
      if (handler !== undefined) await handler(interaction, context, voice);
    },
  };
}

const join: Handler = async (interaction, context, voice) => {
  const channel = targetChannel(interaction);
  const member = interaction.member as GuildMember | null;
  if (
    member?.voice.channelId !== channel.id &&
    !holdsPermission(interaction, context, 'MoveMembers')
  ) {
    throw new CommandRefusal(text.refusal('notThere'));
  }
  const me = channel.guild.members.me;
  const needed =
    PermissionFlagsBits.Connect | PermissionFlagsBits.Speak | PermissionFlagsBits.ViewChannel;
  if (me === null || !channel.permissionsFor(me).has(needed)) {
    throw new CommandRefusal(text.refusal('cannotJoin', { channel: channel.name }));
  }
  await deferIfSlow(interaction, { ephemeral: false });
  let outcome;
  try {
    outcome = await voice.join(channel);
  } catch (error) {
    context.logger.warn({ err: error, channelId: channel.id }, 'could not join a voice channel');
    throw new CommandRefusal(text.refusal('failed', { channel: channel.name }));
  }
  const { locale } = context;
  const reply =
    outcome === 'joined'
      ? text.get(locale, 'joined', {
          channel: channel.name,
          text: voice.textChat ? text.get(locale, 'textOn') : '',
        })
      : text.get(locale, outcome, { channel: channel.name });
  await respond(interaction, reply, { ephemeral: false });
};

const leave: Handler = async (interaction, context, voice) => {
  const guildId = interaction.guildId ?? '';
  const current = voice.status(guildId);
  if (current === undefined) throw new CommandRefusal(text.refusal('notIn'));
  const member = interaction.member as GuildMember | null;
  if (
    member?.voice.channelId !== current.channelId &&
    !holdsPermission(interaction, context, 'MoveMembers')
  ) {
    throw new CommandRefusal(text.refusal('notThere'));
  }
  voice.leave(guildId);
  await respond(interaction, text.get(context.locale, 'left'), { ephemeral: false });
};

const status: Handler = async (interaction, context, voice) => {
  const current = voice.status(interaction.guildId ?? '');
  const { locale } = context;
  if (current === undefined) {
    await respond(interaction, text.get(locale, 'notIn'));
    return;
  }
  const channel = interaction.guild?.channels.cache.get(current.channelId);
  await respond(
    interaction,
    text.get(locale, 'status', {
      channel: channel?.name ?? current.channelId,
      listeners: current.listeners,
      activity: text.get(locale, current.speaking ? 'speaking' : 'listening'),
    }),
  );
};

/** The channel named, else the invoker's own voice channel. */
function targetChannel(interaction: ChatInputCommandInteraction): VoiceBasedChannel {
  const named = interaction.options.getChannel('channel');
  if (named !== null) {
    const channel = interaction.guild?.channels.cache.get(named.id);
    if (channel === undefined || !channel.isVoiceBased()) {
      throw new CommandRefusal(text.refusal('notVoice'));
    }
    return channel;
  }
  const own = (interaction.member as GuildMember | null)?.voice.channel;
  if (own === null || own === undefined) throw new CommandRefusal(text.refusal('noChannel'));
  return own;
}
