import type { Locale } from './locale.ts';

const NANO_USD_PER_USD = 1_000_000_000;
const NUMBER_LOCALES: Record<Locale, string> = { en: 'en-US', ja: 'ja-JP' };

/**
 * Nano-dollars as members read money: cents from a cent up, four significant digits below
 * (a short turn on a cheap model costs a fraction of a cent, and "$0.00" would say "free").
 */
export function formatMoney(nanoUsd: number, locale: Locale): string {
  const dollars = nanoUsd / NANO_USD_PER_USD;
  const small = dollars > 0 && dollars < 0.01;
  return new Intl.NumberFormat(NUMBER_LOCALES[locale], {
    style: 'currency',
    currency: 'USD',
    ...(small
      ? { maximumSignificantDigits: 2 }
      : { minimumFractionDigits: 2, maximumFractionDigits: 2 }),
  }).format(dollars);
}

/** A token count with the locale's grouping: 1,234,567. */
export function formatCount(count: number, locale: Locale): string {
  return new Intl.NumberFormat(NUMBER_LOCALES[locale]).format(count);
}

/** "3 h 12 min" until a moment, rounded up to the minute. */
export function formatWait(milliseconds: number, locale: Locale): string {
  const minutes = Math.max(1, Math.ceil(milliseconds / 60_000));
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  if (locale === 'ja') return hours > 0 ? `${hours}時間${rest}分` : `${rest}分`;
  return hours > 0 ? `${hours} h ${rest} min` : `${rest} min`;
}
