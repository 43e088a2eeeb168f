import { describe, expect, it } from 'vitest';
import { canonicalZone, zoneSuggestions } from './timezone-subcommand.ts';

describe('/config timezone', () => {
  it('takes IANA names in any case, and refuses what Intl does not know', () => {
    expect(canonicalZone('asia/tokyo')).toBe('Asia/Tokyo');
    expect(canonicalZone('Europe/Paris')).toBe('Europe/Paris');
    expect(canonicalZone('UTC')).toBe('UTC');
    expect(canonicalZone('Mars/Olympus')).toBeUndefined();
    expect(canonicalZone('+09:00 tomorrow')).toBeUndefined();
  });

  it('suggests at most 25 zones, the city the member starts typing first', () => {
    expect(zoneSuggestions('tok')[0]).toBe('Asia/Tokyo');
    expect(zoneSuggestions('new york')).toContain('America/New_York');
    expect(zoneSuggestions('')).toHaveLength(25);
    expect(zoneSuggestions('a').length).toBeLessThanOrEqual(25);
    expect(zoneSuggestions('no such place')).toEqual([]);
  });
});
