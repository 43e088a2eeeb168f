import { providerFailureText, CommandRefusal } from '../../i18n/member-text.ts';
import { commandText } from '../command-text.ts';
import { respond } from '../command-replies.ts';
import { openScopeKey, verifyChoice } from './choice-verification.ts';
import type { ConfigSubcommand } from './config-subcommand.ts';
import { DEFAULT_MODEL_CHOICE, ModelAutocomplete } from './model-autocomplete.ts';
import { providerLabel } from './setting-labels.ts';
import { currentSettings, saveSettings } from './settings-writes.ts';

/** Model ids are short; a longer value is a paste gone wrong. */
const MAX_MODEL_ID_LENGTH = 100;

const text = commandText({
  en: {
    description: 'The model to talk with (suggestions as you type)',
    option: 'A model of the current provider, or "default"',
    done: 'Model: `{model}` ({provider}).',
    default_done: 'Model: back to the default, `{model}` ({provider}).',
    unknown_model:
      '**{provider}** has no model `{model}` that this key can use. Nothing was changed; pick one from the suggestions.',
    unverified: 'Saved, but I could not check it with the provider just now: {reason}',
    not_catalogued:
      'I don’t know this model’s limits, so I will assume a small context and no tools. The bot operator can describe it in `MODEL_CATALOG`.',
    invalid: 'That is not a model id.',
  },
  ja: {
    description: '会話に使うモデル（入力中に候補を表示）',
    option: '現在のプロバイダーのモデル、または「default」',
    done: 'モデル：`{model}`（{provider}）。',
    default_done: 'モデル：デフォルトの `{model}`（{provider}）に戻しました。',
    unknown_model:
      '**{provider}** には、このキーで使えるモデル `{model}` がありません。変更していません。候補から選んでください。',
    unverified: '保存しましたが、今はプロバイダーで確認できませんでした：{reason}',
    not_catalogued:
      'このモデルの上限を知らないため、小さなコンテキストでツールなしとして扱います。ボット運営者が `MODEL_CATALOG` で設定できます。',
    invalid: 'モデルIDではありません。',
  },
});

/**
 * `/config model`: checked live with the scope's provider and key before it is saved, so a
 * typo is refused here instead of failing every reply. A check that cannot be made (network,
 * timeout, no key yet) saves the model with a warning.
 */
export function modelSubcommand(): ConfigSubcommand {
  const suggestions = new ModelAutocomplete();
  return {
    name: 'model',
    define: (builder) =>
      builder.addSubcommand((sub) =>
        text
          .describe(sub.setName('model'), 'description')
          .addStringOption((option) =>
            text
              .describe(option.setName('name'), 'option')
              .setRequired(true)
              .setMaxLength(MAX_MODEL_ID_LENGTH)
              .setAutocomplete(true),
          ),
      ),
    autocomplete: (interaction, context) => suggestions.suggest(interaction, context),
    async execute(interaction, context) {
      const { locale, services } = context;
      const typed = interaction.options.getString('name', true).trim();
      if (typed === '' || /\s/.test(typed)) throw new CommandRefusal(text.refusal('invalid'));
      const current = await currentSettings(interaction, context);
      if (typed === DEFAULT_MODEL_CHOICE) {
        const settings = await saveSettings(interaction, context, { model: undefined });
        const { provider, modelId } = services.providers.target(settings);
        await respond(
          interaction,
          text.get(locale, 'default_done', {
            model: modelId,
            provider: providerLabel(locale, provider, services.providers.serverName(provider)),
          }),
        );
        return;
      }
      const verification = await verifyChoice(services, {
        provider: current.provider,
        model: typed,
        apiKey: openScopeKey(services, current),
      });
      const params = {
        model: typed,
        provider: providerLabel(
          locale,
          verification.provider,
          services.providers.serverName(verification.provider),
        ),
      };
      if (!verification.ok && verification.kind === 'model')
        throw new CommandRefusal(text.refusal('unknown_model', params));
      await saveSettings(interaction, context, { model: typed });
      const lines = [text.get(locale, 'done', params)];
      if (!verification.ok)
        lines.push(
          text.get(locale, 'unverified', {
            reason: providerFailureText(verification.kind, locale),
          }),
        );
      if (!services.providers.catalog.lookup(verification.provider, typed).known)
        lines.push(text.get(locale, 'not_catalogued'));
      await respond(interaction, lines.join('\n'));
    },
  };
}
