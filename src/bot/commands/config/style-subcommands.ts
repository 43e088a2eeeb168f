import {
  defaultScopeSettings,
  type DeliveryMode,
  type HumanizerDegree,
} from '../../../core/settings.ts';
import { commandText } from '../command-text.ts';
import { respond } from '../command-replies.ts';
import type { ConfigSubcommand } from './config-subcommand.ts';
import {
  DELIVERY_MODES,
  HUMANIZER_DEGREES,
  humanizerLabel,
  LANGUAGE_CHOICES,
  languageLabel,
  settingLabels,
  type LanguageChoice,
} from './setting-labels.ts';
import {
  addScopeOption,
  chosenScope,
  saveChannelOverrides,
  SCOPE_OPTION,
  scopeText,
} from './setting-scope.ts';
import { saveSettings } from './settings-writes.ts';

/** The widest range the providers take (OpenAI and Gemini: 0–2). */
const MAX_TEMPERATURE = 2;

const text = commandText({
  en: {
    'humanizer.description': 'How human the delivery feels (0 off … 3 a message per sentence)',
    'humanizer.level':
      'The level; leave empty for the server’s (with scope: channel) or the default',
    'humanizer.done': 'Humanizer set to **{level}**.',
    'humanizer.channel_cleared': 'This channel’s humanizer now follows the server’s.',
    'temperature.description': 'Sampling temperature 0–2; leave empty for the model’s default',
    'temperature.value': 'Lower is steadier, higher is more varied',
    'temperature.done': 'Temperature set to **{value}**.',
    'temperature.cleared': 'Temperature back to the model’s default.',
    'temperature.ignored': 'Note: the current model `{model}` ignores the temperature.',
    'language.description': 'The language I reply in',
    'language.value': 'English, Japanese, or the language of whoever writes',
    'language.done': 'Replies: **{language}**.',
    'delivery.description': 'How replies are delivered while they stream',
    'delivery.mode': 'Separate messages, or one message edited as it grows',
    'delivery.done': 'Delivery: **{mode}**.',
  },
  ja: {
    'humanizer.description': '返信の人間らしさ（0 オフ … 3 文ごとに1メッセージ）',
    'humanizer.level': 'レベル。空欄ならサーバーの設定（scope: channel のとき）かデフォルト',
    'humanizer.done': 'ヒューマナイザーを **{level}** に設定しました。',
    'humanizer.channel_cleared':
      'このチャンネルのヒューマナイザーはサーバーの設定に従うようになりました。',
    'temperature.description': '温度 0〜2。空欄ならモデルのデフォルト',
    'temperature.value': '低いほど安定し、高いほど多様になります',
    'temperature.done': '温度を **{value}** に設定しました。',
    'temperature.cleared': '温度をモデルのデフォルトに戻しました。',
    'temperature.ignored': '注意：現在のモデル `{model}` は温度を使いません。',
    'language.description': '返信する言語',
    'language.value': '英語、日本語、または書いた人の言語',
    'language.done': '返信の言語：**{language}**',
    'delivery.description': 'ストリーミング中の返信の届け方',
    'delivery.mode': '別々のメッセージか、伸びていく1つのメッセージか',
    'delivery.done': '届け方：**{mode}**',
  },
});

export const humanizerSubcommand: ConfigSubcommand = {
  name: 'humanizer',
  define: (builder) =>
    builder.addSubcommand((sub) =>
      addScopeOption(
        text
          .describe(sub.setName('humanizer'), 'humanizer.description')
          .addIntegerOption((option) =>
            text
              .describe(option.setName('level'), 'humanizer.level')
              .addChoices(
                ...HUMANIZER_DEGREES.map((degree) =>
                  settingLabels.choice(`humanizer.${degree}`, degree),
                ),
              ),
          ),
      ),
    ),
  async execute(interaction, context) {
    const { locale } = context;
    const scope = chosenScope(interaction.options.getString(SCOPE_OPTION), context);
    const level = (interaction.options.getInteger('level') ?? undefined) as
      HumanizerDegree | undefined;
    if (scope === 'channel') {
      await saveChannelOverrides(interaction, context, { humanizerDegree: level });
      await respond(
        interaction,
        level === undefined
          ? text.get(locale, 'humanizer.channel_cleared')
          : `${text.get(locale, 'humanizer.done', { level: humanizerLabel(locale, level) })}\n${scopeText.get(locale, 'note.channel')}`,
      );
      return;
    }
    const degree = level ?? defaultScopeSettings(context.scope.id).humanizerDegree;
    await saveSettings(interaction, context, { humanizerDegree: degree });
    await respond(
      interaction,
      text.get(locale, 'humanizer.done', { level: humanizerLabel(locale, degree) }),
    );
  },
};

export const temperatureSubcommand: ConfigSubcommand = {
  name: 'temperature',
  define: (builder) =>
    builder.addSubcommand((sub) =>
      text
        .describe(sub.setName('temperature'), 'temperature.description')
        .addNumberOption((option) =>
          text
            .describe(option.setName('value'), 'temperature.value')
            .setMinValue(0)
            .setMaxValue(MAX_TEMPERATURE),
        ),
    ),
  async execute(interaction, context) {
    const value = interaction.options.getNumber('value') ?? undefined;
    const settings = await saveSettings(interaction, context, { temperature: value });
    const { locale } = context;
    const lines = [
      value === undefined
        ? text.get(locale, 'temperature.cleared')
        : text.get(locale, 'temperature.done', { value }),
    ];
    const { providers } = context.services;
    const { provider, modelId } = providers.target(settings);
    if (value !== undefined && !providers.catalog.lookup(provider, modelId).temperature)
      lines.push(text.get(locale, 'temperature.ignored', { model: modelId }));
    await respond(interaction, lines.join('\n'));
  },
};

export const languageSubcommand: ConfigSubcommand = {
  name: 'language',
  define: (builder) =>
    builder.addSubcommand((sub) =>
      text.describe(sub.setName('language'), 'language.description').addStringOption((option) =>
        text
          .describe(option.setName('value'), 'language.value')
          .setRequired(true)
          .addChoices(
            ...LANGUAGE_CHOICES.map((language) =>
              settingLabels.choice(`language.${language}`, language),
            ),
          ),
      ),
    ),
  async execute(interaction, context) {
    const choice = interaction.options.getString('value', true) as LanguageChoice;
    const language = choice === 'auto' ? undefined : choice;
    await saveSettings(interaction, context, { language });
    await respond(
      interaction,
      text.get(context.locale, 'language.done', {
        language: languageLabel(context.locale, language),
      }),
    );
  },
};

export const deliverySubcommand: ConfigSubcommand = {
  name: 'delivery',
  define: (builder) =>
    builder.addSubcommand((sub) =>
      text.describe(sub.setName('delivery'), 'delivery.description').addStringOption((option) =>
        text
          .describe(option.setName('mode'), 'delivery.mode')
          .setRequired(true)
          .addChoices(
            ...DELIVERY_MODES.map((mode) => settingLabels.choice(`delivery.${mode}`, mode)),
          ),
      ),
    ),
  async execute(interaction, context) {
    const mode = interaction.options.getString('mode', true) as DeliveryMode;
    await saveSettings(interaction, context, { deliveryMode: mode });
    await respond(
      interaction,
      text.get(context.locale, 'delivery.done', {
        mode: settingLabels.get(context.locale, `delivery.${mode}`),
      }),
    );
  },
};
