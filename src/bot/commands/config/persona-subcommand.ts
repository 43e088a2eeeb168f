import {
  LabelBuilder,
  ModalBuilder,
  TextInputBuilder,
  TextInputStyle,
  type ChatInputCommandInteraction,
} from 'discord.js';
import type { Locale } from '../../i18n/locale.ts';
import { DEFAULT_PERSONA_INSTRUCTIONS, DEFAULT_PERSONA_NAME } from '../../persona.ts';
import { requirePermission } from '../command-access.ts';
import { commandText } from '../command-text.ts';
import { CommandRefusal, respond } from '../command-replies.ts';
import type { CommandContext } from '../slash-command.ts';
import { configCustomId, type ConfigSubcommand } from './config-subcommand.ts';
import { PERSONA_PRESET_IDS, PERSONA_PRESETS, type PersonaPresetId } from './persona-presets.ts';
import { saveSettings } from './settings-writes.ts';

const NAME_INPUT = 'name';
const INSTRUCTIONS_INPUT = 'instructions';
const MAX_NAME_LENGTH = 80;
/** Discord's limit for a text input. */
const MAX_INSTRUCTIONS_LENGTH = 4_000;
const PREVIEW_LENGTH = 300;
const DEFAULT_PRESET = 'default';

const text = commandText({
  en: {
    description: 'Who I am: my name and how I behave (a form, or a preset)',
    preset: 'Use a built-in persona instead of writing one',
    'preset.friendly': 'Friendly companion',
    'preset.concise': 'Concise assistant',
    'preset.playful': 'Playful friend',
    'preset.default': 'Default (Tomo)',
    'modal.title': 'Persona',
    'modal.name': 'Name',
    'modal.instructions': 'Instructions',
    'modal.instructions_hint': 'Who I am and how I talk, in your own words.',
    done: 'Persona saved: **{name}**.\n{preview}',
    reset: 'Persona back to the default: **{name}**.',
    empty: 'The name and the instructions cannot be empty.',
  },
  ja: {
    description: '私の名前とふるまい（フォーム、またはプリセット）',
    preset: '自分で書く代わりに組み込みのペルソナを使う',
    'preset.friendly': '親しみやすい話し相手',
    'preset.concise': '簡潔なアシスタント',
    'preset.playful': '遊び心のある友達',
    'preset.default': 'デフォルト（Tomo）',
    'modal.title': 'ペルソナ',
    'modal.name': '名前',
    'modal.instructions': '指示',
    'modal.instructions_hint': '私が誰で、どう話すかを自由に書いてください。',
    done: 'ペルソナを保存しました：**{name}**\n{preview}',
    reset: 'ペルソナをデフォルトに戻しました：**{name}**',
    empty: '名前と指示は空にできません。',
  },
});

/** `/config persona`: a form pre-filled with the current persona, or a built-in preset. */
export const personaSubcommand: ConfigSubcommand = {
  name: 'persona',
  define: (builder) =>
    builder.addSubcommand((sub) =>
      text
        .describe(sub.setName('persona'), 'description')
        .addStringOption((option) =>
          text
            .describe(option.setName('preset'), 'preset')
            .addChoices(
              ...[...PERSONA_PRESET_IDS, DEFAULT_PRESET].map((id) =>
                text.choice(`preset.${id as PersonaPresetId | 'default'}`, id),
              ),
            ),
        ),
    ),
  async execute(interaction, context) {
    const preset = interaction.options.getString('preset');
    if (preset === null) await openPersonaForm(interaction, context);
    else await applyPreset(interaction, context, preset);
  },
  async submitModal(interaction, context) {
    requirePermission(interaction, context, 'ManageGuild');
    const name = interaction.fields.getTextInputValue(NAME_INPUT).trim();
    const instructions = interaction.fields.getTextInputValue(INSTRUCTIONS_INPUT).trim();
    if (name === '' || instructions === '')
      throw new CommandRefusal(text.get(context.locale, 'empty'));
    await saveSettings(interaction, context, {
      personaName: name.slice(0, MAX_NAME_LENGTH),
      personaInstructions: instructions.slice(0, MAX_INSTRUCTIONS_LENGTH),
    });
    await respond(interaction, confirmation(context.locale, name, instructions));
  },
};

async function openPersonaForm(
  interaction: ChatInputCommandInteraction,
  context: CommandContext,
): Promise<void> {
  const { locale } = context;
  // A modal must be the first answer, so no defer: the cache answers without the database.
  const settings = await context.services.settings.get(context.scope.id);
  const name = new TextInputBuilder()
    .setCustomId(NAME_INPUT)
    .setStyle(TextInputStyle.Short)
    .setRequired(true)
    .setMaxLength(MAX_NAME_LENGTH)
    .setValue(settings.personaName ?? DEFAULT_PERSONA_NAME);
  const instructions = new TextInputBuilder()
    .setCustomId(INSTRUCTIONS_INPUT)
    .setStyle(TextInputStyle.Paragraph)
    .setRequired(true)
    .setMaxLength(MAX_INSTRUCTIONS_LENGTH)
    .setValue(settings.personaInstructions ?? DEFAULT_PERSONA_INSTRUCTIONS);
  await interaction.showModal(
    new ModalBuilder()
      .setCustomId(configCustomId('persona'))
      .setTitle(text.get(locale, 'modal.title'))
      .addLabelComponents(
        new LabelBuilder().setLabel(text.get(locale, 'modal.name')).setTextInputComponent(name),
        new LabelBuilder()
          .setLabel(text.get(locale, 'modal.instructions'))
          .setDescription(text.get(locale, 'modal.instructions_hint'))
          .setTextInputComponent(instructions),
      ),
  );
}

async function applyPreset(
  interaction: ChatInputCommandInteraction,
  context: CommandContext,
  presetId: string,
): Promise<void> {
  const { locale } = context;
  if (presetId === DEFAULT_PRESET) {
    await saveSettings(interaction, context, {
      personaName: undefined,
      personaInstructions: undefined,
    });
    await respond(interaction, text.get(locale, 'reset', { name: DEFAULT_PERSONA_NAME }));
    return;
  }
  // The presets are written in each language: the admin gets the one they can read.
  const preset = PERSONA_PRESETS[presetId as PersonaPresetId][locale];
  await saveSettings(interaction, context, {
    personaName: preset.name,
    personaInstructions: preset.instructions,
  });
  await respond(interaction, confirmation(locale, preset.name, preset.instructions));
}

function confirmation(locale: Locale, name: string, instructions: string): string {
  const shortened =
    instructions.length > PREVIEW_LENGTH
      ? `${instructions.slice(0, PREVIEW_LENGTH)}…`
      : instructions;
  const preview = shortened
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n');
  return text.get(locale, 'done', { name, preview });
}
