import type { ProviderId } from '../../../core/provider.ts';
import type { DeliveryMode, HumanizerDegree, QueuePolicy } from '../../../core/settings.ts';
import type { Locale } from '../../i18n/locale.ts';
import { commandText } from '../command-text.ts';

/**
 * Names of setting values, shared by the subcommand that sets one (as choice names) and by
 * `/config show`, so a member sees the same words in both.
 */
export const settingLabels = commandText({
  en: {
    'humanizer.0': 'Off: plain replies',
    'humanizer.1': 'Light: a chatty style',
    'humanizer.2': 'Medium: a message per paragraph',
    'humanizer.3': 'Heavy: a message per sentence',
    'language.en': 'English',
    'language.ja': 'Japanese',
    'language.auto': 'Automatic: the language of whoever writes',
    'delivery.messages': 'Separate messages, sent as they are ready',
    'delivery.edit': 'One message, edited while it streams',
    'queue.coalesce': 'Coalesce: answer waiting messages together',
    'queue.queue': 'Queue: answer waiting messages one by one',
    'provider.google': 'Google Gemini',
    'provider.openai': 'OpenAI',
    'provider.anthropic': 'Anthropic Claude',
    'provider.default': 'Default: the bot operator’s choice',
    'provider.server': 'the {vendor}-compatible server at {server}',
    default: 'default',
    'level.channel': 'this channel',
    'level.server': 'server',
    'level.dm': 'our DMs',
    'level.default': 'default',
    on: 'on',
    off: 'off',
  },
  ja: {
    'humanizer.0': 'オフ：普通の返信',
    'humanizer.1': 'ライト：チャットらしい文体',
    'humanizer.2': 'ミディアム：段落ごとに1メッセージ',
    'humanizer.3': 'ヘビー：文ごとに1メッセージ',
    'language.en': '英語',
    'language.ja': '日本語',
    'language.auto': '自動：書いた人の言語',
    'delivery.messages': '準備できたものから別々のメッセージで送信',
    'delivery.edit': '1つのメッセージをストリーミング中に編集',
    'queue.coalesce': 'まとめる：待っているメッセージにまとめて返信',
    'queue.queue': '順番待ち：待っているメッセージに1つずつ返信',
    'provider.google': 'Google Gemini',
    'provider.openai': 'OpenAI',
    'provider.anthropic': 'Anthropic Claude',
    'provider.default': 'デフォルト：ボット運営者の設定',
    'provider.server': '{server} の{vendor}互換サーバー',
    default: 'デフォルト',
    'level.channel': 'このチャンネル',
    'level.server': 'サーバー',
    'level.dm': 'このDM',
    'level.default': 'デフォルト',
    on: 'オン',
    off: 'オフ',
  },
});

export const HUMANIZER_DEGREES: readonly HumanizerDegree[] = [0, 1, 2, 3];
export const DELIVERY_MODES: readonly DeliveryMode[] = ['messages', 'edit'];
export const QUEUE_POLICIES: readonly QueuePolicy[] = ['coalesce', 'queue'];
/** The languages a scope may pin replies to; `auto` stores nothing. */
export const LANGUAGE_CHOICES = ['en', 'ja', 'auto'] as const;
export type LanguageChoice = (typeof LANGUAGE_CHOICES)[number];

export function humanizerLabel(locale: Locale, degree: HumanizerDegree): string {
  return `${settingLabels.get(locale, `humanizer.${degree}`)} (${degree})`;
}

export function languageLabel(locale: Locale, language: string | undefined): string {
  if (language === undefined) return settingLabels.get(locale, 'language.auto');
  return language === 'en' || language === 'ja'
    ? settingLabels.get(locale, `language.${language}`)
    : language;
}

/**
 * The provider as a member should read it: the operator's own server by its host when the
 * provider's base URL points there (a local Ollama is not "OpenAI").
 */
export function providerLabel(
  locale: Locale,
  provider: ProviderId,
  server: string | undefined = undefined,
): string {
  const vendor = settingLabels.get(locale, `provider.${provider}`);
  return server === undefined
    ? vendor
    : settingLabels.get(locale, 'provider.server', { vendor, server });
}
