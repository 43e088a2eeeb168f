import { ActionRowBuilder, ButtonBuilder, ButtonStyle } from 'discord.js';
import { noChannelOverrides } from '../../../core/channel-settings.ts';
import { clearChannelOverrides } from '../../../db/channel-settings-repository.ts';
import { resetScopeSettings } from '../../../db/scope-settings-repository.ts';
import { requirePermission } from '../command-access.ts';
import { commandText } from '../command-text.ts';
import { NO_MENTIONS, respond } from '../command-replies.ts';
import { configCustomId, type ConfigSubcommand } from './config-subcommand.ts';

const text = commandText({
  en: {
    description: 'Put every setting here back to its default (asks first)',
    confirm:
      'This puts **every** setting here back to its default: provider, model, API key, persona (each channel’s too), trigger words, auto-reply and the rest. Sure?',
    button: 'Reset everything',
    done: 'Every setting here is back to its default, and the API key set here was deleted.',
  },
  ja: {
    description: 'ここのすべての設定をデフォルトに戻す（確認あり）',
    confirm:
      'プロバイダー、モデル、APIキー、ペルソナ（チャンネルごとのものも）、トリガーワード、自動返信など、ここの **すべて** の設定をデフォルトに戻します。よろしいですか？',
    button: 'すべてリセット',
    done: 'ここのすべての設定をデフォルトに戻し、ここで設定されていたAPIキーを削除しました。',
  },
});

/** `/config reset`: asks with a button first, since it deletes the scope's key too. */
export const resetSubcommand: ConfigSubcommand = {
  name: 'reset',
  define: (builder) =>
    builder.addSubcommand((sub) => text.describe(sub.setName('reset'), 'description')),
  async execute(interaction, context) {
    const button = new ButtonBuilder()
      .setCustomId(configCustomId('reset'))
      .setStyle(ButtonStyle.Danger)
      .setLabel(text.get(context.locale, 'button'));
    await respond(interaction, {
      content: text.get(context.locale, 'confirm'),
      components: [new ActionRowBuilder<ButtonBuilder>().addComponents(button)],
    });
  },
  async handleComponent(interaction, context) {
    requirePermission(interaction, context, 'ManageGuild');
    await interaction.deferUpdate();
    const settings = await resetScopeSettings(context.services.db, context.scope);
    context.services.settings.written(settings);
    // A channel's own persona or humanizer is one of "every setting here" too.
    const channels = await clearChannelOverrides(context.services.db, context.scope.id);
    for (const channelId of channels)
      context.services.channelSettings.written(noChannelOverrides(channelId));
    context.logger.info({ fields: ['all'] }, 'settings changed');
    await interaction.editReply({
      content: text.get(context.locale, 'done'),
      components: [],
      allowedMentions: NO_MENTIONS,
    });
  },
};
