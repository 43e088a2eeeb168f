/**
 * Recognises a "the prompt is larger than the model's context window" failure. This is the one
 * place that matches provider error text (STYLE.md): vendors report overflow with codes that are
 * missing on many OpenAI-compatible servers, so their messages are the only signal left.
 */

/** The vendor code OpenAI (and many compatible servers) put on an overflow. */
export const CONTEXT_OVERFLOW_CODE = 'context_length_exceeded';

/**
 * OpenAI's wordings and the generic ones compatible servers use, plus the wording Anthropic,
 * Gemini and local servers use.
 */
const OVERFLOW_PATTERNS: readonly RegExp[] = [
  /context_length/i,
  /maximum context length/i,
  /too many tokens/i,
  /context too long/i,
  /exceeds (the )?context window/i,
  /request too large/i,
  /too large for/i,
  // Anthropic: "prompt is too long: 215021 tokens > 200000 maximum".
  /prompt is too long/i,
  // Gemini: "The input token count (…) exceeds the maximum number of tokens allowed (…)".
  /exceeds the maximum number of tokens/i,
  // llama.cpp / LM Studio: "the request exceeds the available context size".
  /exceeds the available context size/i,
];

export function isContextOverflow(options: {
  code?: string | null | undefined;
  message: string;
}): boolean {
  if (options.code === CONTEXT_OVERFLOW_CODE) return true;
  return OVERFLOW_PATTERNS.some((pattern) => pattern.test(options.message));
}
