import {
  ApplicationIntegrationType,
  InteractionContextType,
  SlashCommandBuilder,
  type ChatInputCommandInteraction,
  type SlashCommandStringOption,
} from 'discord.js';
import { permissionBit } from '../command-access.ts';
import { commandText } from '../command-text.ts';
import { respond } from '../command-replies.ts';
import type { CommandContext, SlashCommand } from '../slash-command.ts';
import { requireGuild } from './guild-only.ts';
import { currentSettings, saveSettings } from './settings-writes.ts';
import { CommandRefusal } from '../../i18n/member-text.ts';

/** A word, a name or a short phrase; longer is a sentence, which nobody repeats verbatim. */
const MAX_WORD_LENGTH = 50;
/** Every message in the server is matched against them; a few are plenty. */
const MAX_WORDS = 20;
const MAX_CHOICES = 25;
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

const text = commandText({
  en: {
    description: 'Words that make me answer when a message contains them',
    'add.description': 'Answer messages containing this word',
    'remove.description': 'Stop answering to this word',
    'list.description': 'The trigger words here',
    word: 'A word or short phrase (case does not matter)',
    added: 'I will answer messages containing `{word}`. Trigger words: {count}/{max}.',
    removed: '`{word}` is no longer a trigger word.',
    duplicate: '`{word}` is already a trigger word.',
    missing: '`{word}` is not a trigger word here.',
    full: 'There are already {max} trigger words; remove one first.',
    invalid: 'A trigger word needs a letter or a digit and at most {max} characters.',
    list: '**Trigger words**: {words}',
    none: 'There are no trigger words here. Add one with `/trigger add`.',
  },
  ja: {
    description: 'メッセージに含まれていると私が返信する言葉',
    'add.description': 'この言葉を含むメッセージに返信する',
    'remove.description': 'この言葉への返信をやめる',
    'list.description': 'ここのトリガーワード',
    word: '言葉または短いフレーズ（大文字小文字は区別しません）',
    added: '`{word}` を含むメッセージに返信します。トリガーワード：{count}/{max}',
    removed: '`{word}` はトリガーワードではなくなりました。',
    duplicate: '`{word}` はすでにトリガーワードです。',
    missing: '`{word}` はここのトリガーワードではありません。',
    full: 'トリガーワードはすでに{max}個あります。先に1つ削除してください。',
    invalid: 'トリガーワードには文字か数字が必要で、{max}文字までです。',
    list: '**トリガーワード**：{words}',
    none: 'ここにはトリガーワードがありません。`/trigger add` で追加できます。',
  },
});

/**
 * `/trigger add | remove | list` (Manage Server, guilds only). Words are stored NFKC-normalized
 * and compared case-insensitively, as the matcher compares them (src/bot/trigger-words.ts).
 */
export function triggerCommand(): SlashCommand {
  const wordOption = (option: SlashCommandStringOption) =>
    text.describe(option.setName('word'), 'word').setRequired(true);
  const builder = text
    .describe(new SlashCommandBuilder().setName('trigger'), 'description')
    .setDefaultMemberPermissions(permissionBit('ManageGuild'))
    .setContexts(InteractionContextType.Guild)
    .setIntegrationTypes(ApplicationIntegrationType.GuildInstall)
    .addSubcommand((sub) =>
      text
        .describe(sub.setName('add'), 'add.description')
        .addStringOption((option) => wordOption(option).setMaxLength(MAX_WORD_LENGTH)),
    )
    .addSubcommand((sub) =>
      text
        .describe(sub.setName('remove'), 'remove.description')
        .addStringOption((option) => wordOption(option).setAutocomplete(true)),
    )
    .addSubcommand((sub) => text.describe(sub.setName('list'), 'list.description'));
  return {
    definition: builder.toJSON(),
    category: 'config',
    async execute(interaction, context) {
      requireGuild(context);
      const action = interaction.options.getSubcommand();
      if (action === 'add') await addWord(interaction, context);
      else if (action === 'remove') await removeWord(interaction, context);
      else await listWords(interaction, context);
    },
    async autocomplete(interaction, context) {
      const typed = comparable(interaction.options.getFocused());
      const settings = await context.services.settings.get(context.scope.id);
      await interaction.respond(
        settings.triggerWords
          .filter((word) => comparable(word).includes(typed))
          .slice(0, MAX_CHOICES)
          .map((word) => ({ name: word, value: word })),
      );
    },
  };
}

/** How the matcher sees a word: NFKC, trimmed; compared without case. */
function normalized(word: string): string {
  return word.normalize('NFKC').trim().replace(/\s+/g, ' ');
}

function comparable(word: string): string {
  return normalized(word).toLowerCase();
}

async function addWord(
  interaction: ChatInputCommandInteraction,
  context: CommandContext,
): Promise<void> {
  const { locale } = context;
  const word = normalized(interaction.options.getString('word', true));
  if (word.length > MAX_WORD_LENGTH || !LETTER_OR_DIGIT.test(word))
    throw new CommandRefusal(text.refusal('invalid', { max: MAX_WORD_LENGTH }));
  const current = await currentSettings(interaction, context);
  if (current.triggerWords.some((existing) => comparable(existing) === comparable(word)))
    throw new CommandRefusal(text.refusal('duplicate', { word }));
  if (current.triggerWords.length >= MAX_WORDS)
    throw new CommandRefusal(text.refusal('full', { max: MAX_WORDS }));
  const settings = await saveSettings(
    interaction,
    context,
    { triggerWords: [...current.triggerWords, word] },
    current,
  );
  await respond(
    interaction,
    text.get(locale, 'added', { word, count: settings.triggerWords.length, max: MAX_WORDS }),
  );
}

async function removeWord(
  interaction: ChatInputCommandInteraction,
  context: CommandContext,
): Promise<void> {
  const { locale } = context;
  const word = normalized(interaction.options.getString('word', true));
  const current = await currentSettings(interaction, context);
  const remaining = current.triggerWords.filter(
    (existing) => comparable(existing) !== comparable(word),
  );
  if (remaining.length === current.triggerWords.length)
    throw new CommandRefusal(text.refusal('missing', { word }));
  await saveSettings(interaction, context, { triggerWords: remaining }, current);
  await respond(interaction, text.get(locale, 'removed', { word }));
}

async function listWords(
  interaction: ChatInputCommandInteraction,
  context: CommandContext,
): Promise<void> {
  const settings = await context.services.settings.get(context.scope.id);
  const words = settings.triggerWords;
  await respond(
    interaction,
    words.length === 0
      ? text.get(context.locale, 'none')
      : text.get(context.locale, 'list', { words: words.map((word) => `\`${word}\``).join(', ') }),
  );
}
