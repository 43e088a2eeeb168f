import {
  ApplicationCommandOptionType,
  EmbedBuilder,
  SlashCommandBuilder,
  type APIApplicationCommandOption,
  type RESTPostAPIChatInputApplicationCommandsJSONBody,
} from 'discord.js';
import type { Locale } from '../../i18n/locale.ts';
import { commandText } from '../command-text.ts';
import { respond } from '../command-replies.ts';
import type { SlashCommand } from '../slash-command.ts';

const text = commandText({
  en: {
    description: 'What I can do and how to talk to me',
    title: 'How to talk to me',
    intro:
      'Mention me, reply to one of my messages, or DM me. Say "stop" while I answer to stop me. Admins set me up with `/config` and check the setup with `/doctor`.',
    commands: 'Commands',
  },
  ja: {
    description: 'できることと話しかけ方',
    title: '話しかけ方',
    intro:
      'メンションするか、私のメッセージに返信するか、DMしてください。返信中に「止めて」と言えば止まります。管理者は `/config` で設定し、`/doctor` で確認できます。',
    commands: 'コマンド',
  },
});

/** `/help`: the commands, described from their own registered definitions in the user's language. */
export function helpCommand(
  definitions: () => readonly RESTPostAPIChatInputApplicationCommandsJSONBody[],
): SlashCommand {
  return {
    definition: text.describe(new SlashCommandBuilder().setName('help'), 'description').toJSON(),
    category: 'info',
    async execute(interaction, context) {
      const lines = definitions().map((definition) => describeCommand(definition, context.locale));
      const embed = new EmbedBuilder()
        .setTitle(text.get(context.locale, 'title'))
        .setDescription(
          `${text.get(context.locale, 'intro')}\n\n**${text.get(context.locale, 'commands')}**\n${lines.join('\n')}`,
        );
      await respond(interaction, { embeds: [embed] });
    },
  };
}

function describeCommand(
  definition: RESTPostAPIChatInputApplicationCommandsJSONBody,
  locale: Locale,
): string {
  const subcommands = (definition.options ?? []).flatMap((option) =>
    option.type === ApplicationCommandOptionType.SubcommandGroup
      ? (option.options ?? []).map((inner) => `${option.name} ${inner.name}`)
      : option.type === ApplicationCommandOptionType.Subcommand
        ? [option.name]
        : [],
  );
  const suffix = subcommands.length === 0 ? '' : ` (${subcommands.join(', ')})`;
  return `\`/${definition.name}\` ${localizedDescription(definition, locale)}${suffix}`;
}

function localizedDescription(
  item: RESTPostAPIChatInputApplicationCommandsJSONBody | APIApplicationCommandOption,
  locale: Locale,
): string {
  return (locale === 'ja' ? item.description_localizations?.ja : undefined) ?? item.description;
}
