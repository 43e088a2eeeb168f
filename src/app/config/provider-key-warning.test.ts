import { describe, expect, it } from 'vitest';
import type { Config } from './config.ts';
import { providerKeyWarning } from './provider-key-warning.ts';

const none = { google: undefined, openai: undefined, anthropic: undefined };

function config(overrides: Partial<Config>): Config {
  return {
    defaultProvider: 'google',
    defaultProviderSet: true,
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

  it('does not name a DEFAULT_PROVIDER the operator never set', () => {
    const warning = providerKeyWarning(config({ defaultProviderSet: false }));
    expect(warning).not.toMatch(/DEFAULT_PROVIDER/);
    expect(warning).toBe(
      'no provider key is set: set GOOGLE_API_KEY, OPENAI_API_KEY, ANTHROPIC_API_KEY (or OPENAI_BASE_URL for a local OpenAI-compatible server such as Ollama), or a server admin sets one with /config apikey — until then the bot cannot answer',
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
