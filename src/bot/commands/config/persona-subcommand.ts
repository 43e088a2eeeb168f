import {
  LabelBuilder,
  ModalBuilder,
  TextInputBuilder,
  TextInputStyle,
  type ChatInputCommandInteraction,
  type RepliableInteraction,
} from 'discord.js';
import { applyChannelOverrides } from '../../../core/channel-settings.ts';
import type { Locale } from '../../i18n/locale.ts';
import { DEFAULT_PERSONA_INSTRUCTIONS, DEFAULT_PERSONA_NAME } from '../../context/persona.ts';
import { requirePermission } from '../command-access.ts';
import { commandText } from '../command-text.ts';
import { respond } from '../command-replies.ts';
import type { CommandContext } from '../slash-command.ts';
import { configCustomId, type ConfigSubcommand } from './config-subcommand.ts';
import { PERSONA_PRESET_IDS, PERSONA_PRESETS, type PersonaPresetId } from './persona-presets.ts';
import {
  addScopeOption,
  chosenScope,
  saveChannelOverrides,
  SCOPE_OPTION,
  scopeText,
  type SettingScope,
} from './setting-scope.ts';
import { saveSettings } from './settings-writes.ts';
import { CommandRefusal } from '../../i18n/member-text.ts';

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
    'channel.reset': 'This channel’s persona now follows the server’s.',
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
    'channel.reset': 'このチャンネルのペルソナはサーバーの設定に従うようになりました。',
    empty: '名前と指示は空にできません。',
  },
});

/** `/config persona`: a form pre-filled with the current persona, or a built-in preset. */
export const personaSubcommand: ConfigSubcommand = {
  name: 'persona',
  define: (builder) =>
    builder.addSubcommand((sub) =>
      addScopeOption(
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
    ),
  async execute(interaction, context) {
    const scope = chosenScope(interaction.options.getString(SCOPE_OPTION), context);
    const preset = interaction.options.getString('preset');
    if (preset === null) await openPersonaForm(interaction, context, scope);
    else await applyPreset(interaction, context, { presetId: preset, scope });
  },
  async submitModal(interaction, context) {
    requirePermission(interaction, context, 'ManageGuild');
    const scope = chosenScope(interaction.customId.split(':')[2] ?? null, context);
    const name = interaction.fields.getTextInputValue(NAME_INPUT).trim().slice(0, MAX_NAME_LENGTH);
    const instructions = interaction.fields
      .getTextInputValue(INSTRUCTIONS_INPUT)
      .trim()
      .slice(0, MAX_INSTRUCTIONS_LENGTH);
    if (name === '' || instructions === '') throw new CommandRefusal(text.refusal('empty'));
    await savePersona(interaction, context, { scope, persona: { name, instructions } });
    await respond(interaction, confirmation(context.locale, { name, instructions, scope }));
  },
};

/** Stores a persona (or clears it with undefined) for the server or for this channel only. */
async function savePersona(
  interaction: RepliableInteraction,
  context: CommandContext,
  options: { scope: SettingScope; persona: { name: string; instructions: string } | undefined },
): Promise<void> {
  const { scope, persona } = options;
  if (scope === 'channel') {
    await saveChannelOverrides(interaction, context, { persona });
    return;
  }
  await saveSettings(interaction, context, {
    personaName: persona?.name,
    personaInstructions: persona?.instructions,
  });
}

async function openPersonaForm(
  interaction: ChatInputCommandInteraction,
  context: CommandContext,
  scope: SettingScope,
): Promise<void> {
  const { locale } = context;
  // A modal must be the first answer, so no defer: the caches answer without the database.
  const server = await context.services.settings.get(context.scope.id);
  const settings =
    scope === 'channel'
      ? applyChannelOverrides(
          server,
          await context.services.channelSettings.get(interaction.channelId),
        )
      : server;
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
      // `config:persona:channel` brings the chosen scope back with the submitted form.
      .setCustomId(`${configCustomId('persona')}:${scope}`)
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
  options: { presetId: string; scope: SettingScope },
): Promise<void> {
  const { locale } = context;
  const { presetId, scope } = options;
  if (presetId === DEFAULT_PRESET) {
    await savePersona(interaction, context, { scope, persona: undefined });
    await respond(
      interaction,
      scope === 'channel'
        ? text.get(locale, 'channel.reset')
        : text.get(locale, 'reset', { name: DEFAULT_PERSONA_NAME }),
    );
    return;
  }
  // The presets are written in each language: the admin gets the one they can read.
  const preset = PERSONA_PRESETS[presetId as PersonaPresetId][locale];
  await savePersona(interaction, context, { scope, persona: preset });
  await respond(interaction, confirmation(locale, { ...preset, scope }));
}

function confirmation(
  locale: Locale,
  options: { name: string; instructions: string; scope: SettingScope },
): string {
  const { name, instructions, scope } = options;
  const shortened =
    instructions.length > PREVIEW_LENGTH
      ? `${instructions.slice(0, PREVIEW_LENGTH)}…`
      : instructions;
  const preview = shortened
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n');
  const done = text.get(locale, 'done', { name, preview });
  return scope === 'channel' ? `${done}\n${scopeText.get(locale, 'note.channel')}` : done;
}
