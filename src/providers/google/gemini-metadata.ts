import type { ProviderMetadata } from '../../core/chat.ts';

/**
 * Gemini signs its thinking with an opaque `thoughtSignature` on thought and functionCall parts.
 * A function-calling turn must send the signature back on the same part, or Gemini 3 rejects the
 * next request of the tool loop. It lives in `providerMetadata.google`.
 */
export function geminiMetadata(thoughtSignature: string): ProviderMetadata {
  return { google: { thoughtSignature } };
}

export function readThoughtSignature(metadata: ProviderMetadata | undefined): string | undefined {
  const value = metadata?.['google'];
  if (typeof value !== 'object' || value === null) return undefined;
  const signature = (value as Record<string, unknown>)['thoughtSignature'];
  return typeof signature === 'string' ? signature : undefined;
}
