/**
 * A model's list price in US dollars. Token prices are per million tokens, as vendors quote
 * them; speech is priced per minute of audio (transcription) or per million characters
 * (synthesis). A model with no price costs 0: a local server, or a model the operator has not
 * priced in MODEL_CATALOG.
 */
export interface ModelPrice {
  /** Dollars per million input tokens not served from the provider's prompt cache. */
  inputPerMillion: number;
  /** Dollars per million input tokens read from the prompt cache; the input price when absent. */
  cachedInputPerMillion?: number | undefined;
  /** Dollars per million output tokens (reasoning tokens included, as vendors bill them). */
  outputPerMillion: number;
  /** Speech to text: dollars per minute of audio. */
  perMinute?: number | undefined;
  /** Text to speech: dollars per million characters. */
  perMillionCharacters?: number | undefined;
}

/**
 * Money is counted in billionths of a dollar (integers): a cheap model's single token costs a
 * few of them, so sums over millions of turns stay exact in a bigint column.
 */
export const NANO_USD_PER_USD = 1_000_000_000;
const NANO_USD_PER_USD_PER_MILLION = NANO_USD_PER_USD / 1_000_000;

export interface BilledTokens {
  inputTokens: number;
  /** Part of `inputTokens` read from the prompt cache. */
  cachedInputTokens: number;
  outputTokens: number;
}

/** What a model call cost at `price`, in nano-dollars (0 without a price). */
export function tokenCost(usage: BilledTokens, price: ModelPrice | undefined): number {
  if (price === undefined) return 0;
  const cached = Math.min(Math.max(usage.cachedInputTokens, 0), Math.max(usage.inputTokens, 0));
  const uncached = Math.max(usage.inputTokens, 0) - cached;
  const output = Math.max(usage.outputTokens, 0);
  return (
    perMillion(uncached, price.inputPerMillion) +
    perMillion(cached, price.cachedInputPerMillion ?? price.inputPerMillion) +
    perMillion(output, price.outputPerMillion)
  );
}

/** What speech cost at `price`, in nano-dollars (0 when the price has no speech rate). */
export function speechCost(
  usage: { minutes?: number; characters?: number },
  price: ModelPrice | undefined,
): number {
  if (price === undefined) return 0;
  const minutes = Math.max(usage.minutes ?? 0, 0);
  const characters = Math.max(usage.characters ?? 0, 0);
  return (
    Math.round(minutes * (price.perMinute ?? 0) * NANO_USD_PER_USD) +
    perMillion(characters, price.perMillionCharacters ?? 0)
  );
}

/** Dollars (a budget an admin typed) → nano-dollars. */
export function nanoUsdOf(dollars: number): number {
  return Math.round(dollars * NANO_USD_PER_USD);
}

/** Nano-dollars → dollars, for display. */
export function dollarsOf(nanoUsd: number): number {
  return nanoUsd / NANO_USD_PER_USD;
}

function perMillion(units: number, dollarsPerMillion: number): number {
  return Math.round(units * dollarsPerMillion * NANO_USD_PER_USD_PER_MILLION);
}
