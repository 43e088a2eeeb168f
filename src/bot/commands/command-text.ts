import type { Locale } from '../i18n/locale.ts';
import type { Refusal } from '../i18n/member-text.ts';

type Params = Readonly<Record<string, string | number>>;

interface Describable {
  setDescription(description: string): unknown;
  setDescriptionLocalizations(localizations: Readonly<Record<string, string>>): unknown;
}

/** A command's own texts in every supported language: descriptions, choices and replies. */
export interface CommandText<Key extends string> {
  /** The text in `locale`, with `{name}` placeholders filled. */
  get(locale: Locale, key: Key, params?: Params): string;
  /** A refusal in this command's own words, for a CommandRefusal (worded in the invoker's language). */
  refusal(key: Key, params?: Params): Extract<Refusal, { kind: 'command' }>;
  /** Sets a builder's description (en-US) and its Japanese localization. */
  describe<Builder extends Describable>(builder: Builder, key: Key): Builder;
  /** A choice with its Japanese name, for `addChoices`. */
  choice<Value extends string | number>(
    key: Key,
    value: Value,
  ): { name: string; name_localizations: { ja: string }; value: Value };
}

/**
 * Declares a command's texts once, en and ja side by side; a key missing in ja is a type
 * error, and the definition walker test checks every description has its `ja` localization.
 */
export function commandText<Key extends string>(catalogue: {
  en: Readonly<Record<Key, string>>;
  ja: Readonly<Record<NoInfer<Key>, string>>;
}): CommandText<Key> {
  const get = (locale: Locale, key: Key, params: Params = {}): string =>
    catalogue[locale][key].replace(/\{(\w+)\}/g, (match, name: string) =>
      name in params ? String(params[name]) : match,
    );
  return {
    get,
    refusal: (key, params = {}) => ({
      kind: 'command',
      wording: (locale) => get(locale, key, params),
    }),
    describe(builder, key) {
      builder.setDescription(catalogue.en[key]);
      builder.setDescriptionLocalizations({ ja: catalogue.ja[key] });
      return builder;
    },
    choice(key, value) {
      return { name: catalogue.en[key], name_localizations: { ja: catalogue.ja[key] }, value };
    },
  };
}
