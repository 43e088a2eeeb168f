import { describe, expect, it } from 'vitest';
import { resolveLocale, SUPPORTED_LOCALES } from './locale.ts';
import { catalogueOf, translate } from './messages.ts';

describe('messages', () => {
  it('has every key in every locale with the same placeholders', () => {
    const english = catalogueOf('en');
    for (const locale of SUPPORTED_LOCALES) {
      const catalogue = catalogueOf(locale);
      expect(Object.keys(catalogue).sort()).toEqual(Object.keys(english).sort());
      for (const [key, text] of Object.entries(catalogue)) {
        const placeholders = (value: string): string[] => (value.match(/\{\w+\}/g) ?? []).sort();
        expect(placeholders(text), `${locale} ${key}`).toEqual(
          placeholders(english[key as keyof typeof english]),
        );
      }
    }
  });

  it('fills placeholders', () => {
    expect(translate('en', 'note.member_rate_limited', { seconds: 12 })).toContain('12 s');
    expect(translate('ja', 'error.incident', { incident: 'ab12' })).toContain('ab12');
  });

  it('resolves Discord locales and scope languages to a supported locale', () => {
    expect(resolveLocale('ja')).toBe('ja');
    expect(resolveLocale(undefined, 'en-US')).toBe('en');
    expect(resolveLocale('fr', 'ja')).toBe('ja');
    expect(resolveLocale('pt-BR')).toBe('en');
  });
});
