export const SUPPORTED_LOCALES = ['en', 'ja'] as const;
export type Locale = (typeof SUPPORTED_LOCALES)[number];

/** Maps a Discord locale (`en-US`, `ja`, …) or a scope language setting to a supported locale. */
export function resolveLocale(...candidates: ReadonlyArray<string | undefined | null>): Locale {
  for (const candidate of candidates) {
    const base = candidate?.toLowerCase().split('-')[0];
    const found = SUPPORTED_LOCALES.find((locale) => locale === base);
    if (found !== undefined) return found;
  }
  return 'en';
}
