import type {
  RepliableInteraction,
  SlashCommandStringOption,
  SlashCommandSubcommandBuilder,
} from 'discord.js';
import type { ChannelOverrides } from '../../../core/channel-settings.ts';
import {
  updateChannelOverrides,
  type ChannelOverridesPatch,
} from '../../../db/channel-settings-repository.ts';
import { commandText } from '../command-text.ts';
import { deferIfSlow } from '../command-replies.ts';
import type { CommandContext } from '../slash-command.ts';
import { requireGuild } from './guild-only.ts';

/** Where a `/config persona` or `/config humanizer` change applies. */
export type SettingScope = 'server' | 'channel';

export const SCOPE_OPTION = 'scope';

export const scopeText = commandText({
  en: {
    scope: 'The whole server (default), or only this channel',
    'scope.server': 'The whole server',
    'scope.channel': 'Only this channel',
    'note.channel': '_This channel only; the server’s setting applies elsewhere._',
  },
  ja: {
    scope: 'サーバー全体（デフォルト）、またはこのチャンネルだけ',
    'scope.server': 'サーバー全体',
    'scope.channel': 'このチャンネルだけ',
    'note.channel':
      '_このチャンネルだけの設定です。他のチャンネルではサーバーの設定が使われます。_',
  },
});

/** Adds the `scope` option (server | channel) to a subcommand. */
export function addScopeOption(sub: SlashCommandSubcommandBuilder): SlashCommandSubcommandBuilder {
  return sub.addStringOption((option: SlashCommandStringOption) =>
    scopeText
      .describe(option.setName(SCOPE_OPTION), 'scope')
      .addChoices(
        scopeText.choice('scope.server', 'server'),
        scopeText.choice('scope.channel', 'channel'),
      ),
  );
}

/** The scope the invoker chose; `channel` exists only in a server (DMs have one channel). */
export function chosenScope(value: string | null, context: CommandContext): SettingScope {
  if (value !== 'channel') return 'server';
  requireGuild(context);
  return 'channel';
}

/**
 * Saves a change to the channel the command is used in (deferring first) and writes it through
 * to this process's cache, so the next message there sees it.
 */
export async function saveChannelOverrides(
  interaction: RepliableInteraction,
  context: CommandContext,
  patch: ChannelOverridesPatch,
): Promise<ChannelOverrides> {
  requireGuild(context);
  const channelId = interaction.channelId;
  if (channelId === null) throw new Error('a channel setting needs the interaction’s channel');
  await deferIfSlow(interaction);
  const updated = await updateChannelOverrides(context.services.db, {
    channelId,
    scope: context.scope,
    patch,
  });
  context.services.channelSettings.written(updated);
  // Field names only: a persona is the members' text, not the log's.
  context.logger.info({ fields: Object.keys(patch), channelId }, 'channel settings changed');
  return updated;
}
