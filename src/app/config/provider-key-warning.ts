import type { Config } from './config.ts';
import type { ProviderId } from '../../core/provider.ts';

const KEY_VARIABLES: Record<ProviderId, string> = {
  google: 'GOOGLE_API_KEY',
  openai: 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
};

/**
 * The start-up warning when the default provider has no operator key (a local
 * OpenAI-compatible server at OPENAI_BASE_URL needs none): the bot still starts, since a server
 * admin can set a key with `/config apikey`, but until then it cannot answer there.
 */
export function providerKeyWarning(config: Config): string | undefined {
  const provider = config.defaultProvider;
  if (config.providerKeys[provider] !== undefined) return undefined;
  if (provider === 'openai' && config.providerBaseUrls.openai !== undefined) return undefined;
  const until =
    ', or a server admin sets one with /config apikey — until then the bot cannot answer';
  // Without DEFAULT_PROVIDER the default is only a guess from the keys: there is no choice to name.
  if (!config.defaultProviderSet) {
    return (
      `no provider key is set: set ${Object.values(KEY_VARIABLES).join(', ')}` +
      ' (or OPENAI_BASE_URL for a local OpenAI-compatible server such as Ollama)' +
      until
    );
  }
  const none = Object.values(config.providerKeys).every((key) => key === undefined);
  return (
    `no API key for DEFAULT_PROVIDER=${provider}: set ${KEY_VARIABLES[provider]}` +
    (none ? ' (no provider key is set at all)' : '') +
    until
  );
}
