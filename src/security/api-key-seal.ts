import { SecretError } from '../core/errors.ts';
import { PROVIDER_IDS, type ProviderId } from '../core/provider.ts';
import type { SecretBox } from './secret-box.ts';

/**
 * A scope's API key as stored: `<provider>:<SecretBox value>`. A key belongs to one vendor, so
 * the provider is sealed with it as associated data (`scope:<id>:api_key:<provider>`): the
 * readable prefix says which vendor without decrypting, and editing it breaks authentication.
 * Opening the key for another provider is refused, so it is never sent to another vendor.
 *
 * Values stored before the provider was recorded (no prefix, associated data
 * `scope:<id>:api_key`) still open; the start-up reseal binds each to the provider the scope
 * used at that moment (see api-key-reseal.ts).
 */
export interface SealedApiKey {
  /** undefined for a value stored before the provider was recorded. */
  provider: ProviderId | undefined;
  /** The SecretBox value. */
  sealed: string;
}

export function sealApiKey(
  box: SecretBox,
  key: { scopeId: string; provider: ProviderId; apiKey: string },
): string {
  return `${key.provider}:${box.seal(key.apiKey, boundContext(key.scopeId, key.provider))}`;
}

/** Splits a stored value; a value without a known provider prefix is one stored before it. */
export function parseSealedApiKey(stored: string): SealedApiKey {
  const separator = stored.indexOf(':');
  const prefix = separator === -1 ? '' : stored.slice(0, separator);
  return (PROVIDER_IDS as readonly string[]).includes(prefix)
    ? { provider: prefix as ProviderId, sealed: stored.slice(separator + 1) }
    : { provider: undefined, sealed: stored };
}

/**
 * The plain key, for `provider`. @throws SecretError `wrong_provider` when it was stored for
 * another provider; `wrong_key` / `tampered` / `format` when it cannot be opened.
 */
export function openSealedApiKey(
  box: SecretBox,
  key: { scopeId: string; provider: ProviderId; stored: string },
): string {
  const { provider, sealed } = parseSealedApiKey(key.stored);
  if (provider === undefined) return box.open(sealed, legacyContext(key.scopeId));
  if (provider !== key.provider) {
    throw new SecretError(
      'wrong_provider',
      `stored API key belongs to ${provider}, not ${key.provider}; set it again`,
    );
  }
  return box.open(sealed, boundContext(key.scopeId, provider));
}

/** Binds a sealed key to its scope and vendor: copied into another row, it will not open. */
function boundContext(scopeId: string, provider: ProviderId): string {
  return `scope:${scopeId}:api_key:${provider}`;
}

function legacyContext(scopeId: string): string {
  return `scope:${scopeId}:api_key`;
}
