import {
  LabelBuilder,
  ModalBuilder,
  TextInputBuilder,
  TextInputStyle,
  type ChatInputCommandInteraction,
  type ModalSubmitInteraction,
} from 'discord.js';
import type { ProviderId } from '../../../core/provider.ts';
import { loadScopeSettings, storeApiKey } from '../../../db/scope-settings-repository.ts';
import { providerFailureText, CommandRefusal } from '../../i18n/member-text.ts';
import { requirePermission } from '../command-access.ts';
import { commandText } from '../command-text.ts';
import { deferIfSlow, respond } from '../command-replies.ts';
import type { CommandContext } from '../slash-command.ts';
import { verifyChoice } from './choice-verification.ts';
import { configCustomId, type ConfigSubcommand } from './config-subcommand.ts';
import { providerLabel } from './setting-labels.ts';

const KEY_INPUT = 'key';
/** Real keys are 30–200 characters; the bounds only catch an empty or pasted-twice field. */
const MIN_KEY_LENGTH = 8;
const MAX_KEY_LENGTH = 500;
const KEY_PLACEHOLDERS: Readonly<Record<ProviderId, string>> = {
  openai: 'sk-…',
  anthropic: 'sk-ant-…',
  google: 'AIza…',
};

const text = commandText({
  en: {
    description: 'The API key this server pays with',
    'set.description': 'Set the key (typed into a private form, checked, stored encrypted)',
    'clear.description': 'Remove this server’s key',
    'modal.title': 'API key for {provider}',
    'modal.label': 'Key',
    'modal.hint': 'Checked with {provider}, then stored encrypted. It is never shown again.',
    malformed: 'That does not look like an API key (no spaces, {min}–{max} characters).',
    refused_auth: '**{provider}** refused this key. Nothing was saved.',
    refused_model:
      'This key cannot use the model `{model}` on **{provider}**. Nothing was saved: pick a model it can use with `/config model`, then set the key again.',
    saved: 'Key saved for **{provider}**; it works with `{model}`. It is stored encrypted.',
    saved_unverified:
      'Key saved for **{provider}** (stored encrypted), but I could not check it just now: {reason}',
    cleared: 'This server’s key was removed.',
    cleared_operator: 'Replies now use the bot operator’s provider account.',
    cleared_none: 'There is no key to use now: I can’t answer until one is set.',
    not_set: 'No key was set here.',
  },
  ja: {
    description: 'このサーバーが支払いに使うAPIキー',
    'set.description': 'キーを設定（非公開フォームに入力、確認後に暗号化して保存）',
    'clear.description': 'このサーバーのキーを削除',
    'modal.title': '{provider} のAPIキー',
    'modal.label': 'キー',
    'modal.hint': '{provider} で確認してから暗号化して保存します。二度と表示されません。',
    malformed: 'APIキーの形式ではありません（空白なし、{min}〜{max}文字）。',
    refused_auth: '**{provider}** がこのキーを拒否しました。何も保存していません。',
    refused_model:
      'このキーは **{provider}** のモデル `{model}` を使えません。何も保存していません。`/config model` で使えるモデルを選んでから、もう一度キーを設定してください。',
    saved:
      '**{provider}** のキーを保存しました。`{model}` で動作します。暗号化して保存されています。',
    saved_unverified:
      '**{provider}** のキーを保存しました（暗号化済み）が、今は確認できませんでした：{reason}',
    cleared: 'このサーバーのキーを削除しました。',
    cleared_operator: '今後の返信にはボット運営者のプロバイダーアカウントを使います。',
    cleared_none: '使えるキーがありません。キーが設定されるまで返信できません。',
    not_set: 'ここにはキーが設定されていません。',
  },
});

/**
 * `/config apikey set | clear`. The key is typed into a modal (never a slash-command option,
 * which Discord would show in the channel's "used /config" line), checked live with the scope's
 * provider and model, and sealed before it reaches the database; no reply or log line holds it.
 */
export const apiKeySubcommand: ConfigSubcommand = {
  name: 'apikey',
  define: (builder) =>
    builder.addSubcommandGroup((group) =>
      text
        .describe(group.setName('apikey'), 'description')
        .addSubcommand((sub) => text.describe(sub.setName('set'), 'set.description'))
        .addSubcommand((sub) => text.describe(sub.setName('clear'), 'clear.description')),
    ),
  async execute(interaction, context) {
    if (interaction.options.getSubcommand() === 'clear') await clearKey(interaction, context);
    else await openKeyForm(interaction, context);
  },
  async submitModal(interaction, context) {
    await storeCheckedKey(interaction, context);
  },
};

async function openKeyForm(
  interaction: ChatInputCommandInteraction,
  context: CommandContext,
): Promise<void> {
  const { locale, services } = context;
  // A modal must be the first answer, so no defer: the cache answers without the database.
  const settings = await services.settings.get(context.scope.id);
  const { provider } = services.providers.target(settings);
  // A modal's title holds 45 characters: the operator's server is named by its host alone.
  const params = {
    provider: services.providers.serverName(provider) ?? providerLabel(locale, provider),
  };
  const input = new TextInputBuilder()
    .setCustomId(KEY_INPUT)
    .setStyle(TextInputStyle.Short)
    .setRequired(true)
    .setMinLength(MIN_KEY_LENGTH)
    .setMaxLength(MAX_KEY_LENGTH)
    .setPlaceholder(KEY_PLACEHOLDERS[provider]);
  const label = new LabelBuilder()
    .setLabel(text.get(locale, 'modal.label'))
    .setDescription(text.get(locale, 'modal.hint', params))
    .setTextInputComponent(input);
  await interaction.showModal(
    new ModalBuilder()
      .setCustomId(configCustomId('apikey'))
      .setTitle(text.get(locale, 'modal.title', params))
      .addLabelComponents(label),
  );
}

async function storeCheckedKey(
  interaction: ModalSubmitInteraction,
  context: CommandContext,
): Promise<void> {
  const { locale, services } = context;
  // Permissions can change while the form is open.
  requirePermission(interaction, context, 'ManageGuild');
  await deferIfSlow(interaction);
  const key = interaction.fields.getTextInputValue(KEY_INPUT).trim();
  if (key.length < MIN_KEY_LENGTH || key.length > MAX_KEY_LENGTH || /\s/.test(key)) {
    throw new CommandRefusal(
      text.refusal('malformed', { min: MIN_KEY_LENGTH, max: MAX_KEY_LENGTH }),
    );
  }
  const current = await loadScopeSettings(services.db, context.scope.id);
  const verification = await verifyChoice(services, {
    provider: current.provider,
    model: current.model,
    apiKey: key,
  });
  const params = {
    provider: providerLabel(
      locale,
      verification.provider,
      services.providers.serverName(verification.provider),
    ),
    model: verification.modelId,
  };
  if (!verification.ok && verification.kind === 'auth')
    throw new CommandRefusal(text.refusal('refused_auth', params));
  // A model the server lacks says nothing against the key (the key was accepted to learn that).
  // Only a model the admin chose is theirs to fix first; the operator's default is saved past.
  if (!verification.ok && verification.kind === 'model' && current.model !== undefined)
    throw new CommandRefusal(text.refusal('refused_model', params));
  const settings = await storeApiKey(services.db, {
    box: services.secretBox,
    scope: context.scope,
    key: { apiKey: key, provider: verification.provider },
  });
  services.settings.written(settings);
  context.logger.info({ fields: ['apiKey'], verified: verification.ok }, 'settings changed');
  await respond(
    interaction,
    verification.ok
      ? text.get(locale, 'saved', params)
      : text.get(locale, 'saved_unverified', {
          ...params,
          reason: providerFailureText(verification.kind, locale),
        }),
  );
}

async function clearKey(
  interaction: ChatInputCommandInteraction,
  context: CommandContext,
): Promise<void> {
  const { locale, services } = context;
  await deferIfSlow(interaction);
  const current = await loadScopeSettings(services.db, context.scope.id);
  if (current.apiKeyCiphertext === undefined) {
    await respond(interaction, text.get(locale, 'not_set'));
    return;
  }
  const settings = await storeApiKey(services.db, {
    box: services.secretBox,
    scope: context.scope,
    key: undefined,
  });
  services.settings.written(settings);
  context.logger.info({ fields: ['apiKey'] }, 'settings changed');
  const fallback = services.providers.fallbackKeySource(
    services.providers.target(settings).provider,
  );
  await respond(
    interaction,
    `${text.get(locale, 'cleared')}\n${text.get(locale, fallback === undefined ? 'cleared_none' : 'cleared_operator')}`,
  );
}
