import type { ProviderMetadata } from '../../core/chat.ts';

/**
 * What the Anthropic adapter stores in `providerMetadata.anthropic` of a reasoning block, so the
 * next request of a tool loop can send the thinking back exactly as it was signed.
 */
export interface AnthropicReasoningMetadata {
  signature?: string;
  /** The opaque payload of a redacted_thinking block. */
  redactedData?: string;
}

export function anthropicMetadata(metadata: AnthropicReasoningMetadata): ProviderMetadata {
  return { anthropic: metadata };
}

export function readAnthropicMetadata(
  metadata: ProviderMetadata | undefined,
): AnthropicReasoningMetadata | undefined {
  const value = metadata?.['anthropic'];
  if (typeof value !== 'object' || value === null) return undefined;
  const { signature, redactedData } = value as Record<string, unknown>;
  return {
    ...(typeof signature === 'string' ? { signature } : {}),
    ...(typeof redactedData === 'string' ? { redactedData } : {}),
  };
}
