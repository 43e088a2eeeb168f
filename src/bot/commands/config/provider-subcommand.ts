import { PROVIDER_IDS, type ProviderId } from '../../../core/provider.ts';
import { storeApiKey } from '../../../db/scope-settings-repository.ts';
import { commandText } from '../command-text.ts';
import { respond } from '../command-replies.ts';
import type { ConfigSubcommand } from './config-subcommand.ts';
import { providerLabel, settingLabels } from './setting-labels.ts';
import { currentSettings, saveSettings } from './settings-writes.ts';

const DEFAULT_CHOICE = 'default';

const text = commandText({
  en: {
    description: 'The AI provider: Google Gemini, OpenAI or Anthropic Claude',
    option: 'The provider, or the bot operator’s default',
    done: 'Provider: **{provider}**, model `{model}`.',
    default_done: 'Provider: the operator’s default, now **{provider}**, model `{model}`.',
    model_reset: 'The model went back to this provider’s default.',
    key_removed:
      'The API key set here belonged to **{previous}** and was removed, so it is never sent to another provider.',
    key_missing: 'There is no **{provider}** key to use yet: set one with `/config apikey set`.',
  },
  ja: {
    description: 'AIプロバイダー：Google Gemini、OpenAI、Anthropic Claude',
    option: 'プロバイダー、またはボット運営者のデフォルト',
    done: 'プロバイダー：**{provider}**、モデル `{model}`。',
    default_done: 'プロバイダー：運営者のデフォルト（現在 **{provider}**）、モデル `{model}`。',
    model_reset: 'モデルはこのプロバイダーのデフォルトに戻りました。',
    key_removed:
      'ここで設定されていたAPIキーは **{previous}** 用だったため削除しました。別のプロバイダーに送られることはありません。',
    key_missing: '**{provider}** のキーがまだありません。`/config apikey set` で設定してください。',
  },
});

/**
 * `/config provider`. A model id names one provider's model and a key opens one provider's
 * account, so when the provider really changes, the model goes back to the default and a
 * stored key is deleted rather than sent to the wrong vendor.
 */
export const providerSubcommand: ConfigSubcommand = {
  name: 'provider',
  define: (builder) =>
    builder.addSubcommand((sub) =>
      text.describe(sub.setName('provider'), 'description').addStringOption((option) =>
        text
          .describe(option.setName('name'), 'option')
          .setRequired(true)
          .addChoices(
            ...[...PROVIDER_IDS, DEFAULT_CHOICE].map((id) =>
              settingLabels.choice(`provider.${id as ProviderId | 'default'}`, id),
            ),
          ),
      ),
    ),
  async execute(interaction, context) {
    const { locale, services } = context;
    const chosen = interaction.options.getString('name', true);
    const provider = chosen === DEFAULT_CHOICE ? undefined : (chosen as ProviderId);
    const current = await currentSettings(interaction, context);
    const before = services.providers.target(current).provider;
    const after = services.providers.target({ provider, model: undefined }).provider;
    const changed = before !== after;
    let settings = await saveSettings(interaction, context, {
      provider,
      ...(changed ? { model: undefined } : {}),
    });
    const keyRemoved = changed && settings.apiKeyCiphertext !== undefined;
    if (keyRemoved) {
      settings = await storeApiKey(services.db, {
        box: services.secretBox,
        scope: context.scope,
        key: undefined,
      });
      services.settings.written(settings);
    }
    const { modelId } = services.providers.target(settings);
    const params = {
      provider: providerLabel(locale, after, services.providers.serverName(after)),
      model: modelId,
    };
    const lines = [text.get(locale, provider === undefined ? 'default_done' : 'done', params)];
    if (changed && current.model !== undefined) lines.push(text.get(locale, 'model_reset'));
    if (keyRemoved)
      lines.push(
        text.get(locale, 'key_removed', {
          previous: providerLabel(locale, before, services.providers.serverName(before)),
        }),
      );
    if (
      settings.apiKeyCiphertext === undefined &&
      services.providers.fallbackKeySource(after) === undefined
    )
      lines.push(text.get(locale, 'key_missing', params));
    await respond(interaction, lines.join('\n'));
  },
};
