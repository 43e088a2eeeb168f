import { describe, expect, it } from 'vitest';
import type { Config } from './config.ts';
import { providerKeyWarning } from './provider-key-warning.ts';

const none = { google: undefined, openai: undefined, anthropic: undefined };

function config(overrides: Partial<Config>): Config {
  return {
    defaultProvider: 'google',
    providerKeys: { ...none },
    providerBaseUrls: { ...none },
    ...overrides,
  } as Config;
}

describe('providerKeyWarning', () => {
  it('warns when the default provider has no key, naming the variable and /config apikey', () => {
    expect(providerKeyWarning(config({ providerKeys: { ...none, openai: 'sk-x' } }))).toBe(
      'no API key for DEFAULT_PROVIDER=google: set GOOGLE_API_KEY, or a server admin sets one with /config apikey — until then the bot cannot answer',
    );
  });

  it('says so when no key is set at all', () => {
    expect(providerKeyWarning(config({ defaultProvider: 'anthropic' }))).toMatch(
      /ANTHROPIC_API_KEY \(no provider key is set at all\)/,
    );
  });

  it('is quiet with a key, or for a local OpenAI-compatible server that needs none', () => {
    expect(providerKeyWarning(config({ providerKeys: { ...none, google: 'g' } }))).toBeUndefined();
    expect(
      providerKeyWarning(
        config({
          defaultProvider: 'openai',
          providerBaseUrls: { ...none, openai: 'http://127.0.0.1:11434/v1' },
        }),
      ),
    ).toBeUndefined();
  });
});
