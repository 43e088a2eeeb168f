import type { ProviderId } from '../../core/provider.ts';
import type { ModelCatalog } from '../model-catalog.ts';
import { speechCost, type ModelPrice } from '../model-price.ts';

const TRANSCRIPTION = (perMinute: number): ModelPrice => ({
  inputPerMillion: 0,
  outputPerMillion: 0,
  perMinute,
});
const SYNTHESIS = (perMillionCharacters: number): ModelPrice => ({
  inputPerMillion: 0,
  outputPerMillion: 0,
  perMillionCharacters,
});

/**
 * OpenAI's list prices of its speech models, in US dollars. gpt-4o-mini-tts is billed by
 * tokens; OpenAI estimates it at $0.015 a minute of speech, about what tts-1 costs for the
 * ~1,000 characters a minute holds, so it is priced like tts-1 here.
 */
const OPENAI_SPEECH_PRICES: Readonly<Record<string, ModelPrice>> = {
  'whisper-1': TRANSCRIPTION(0.006),
  'gpt-4o-transcribe': TRANSCRIPTION(0.006),
  'gpt-4o-mini-transcribe': TRANSCRIPTION(0.003),
  'tts-1': SYNTHESIS(15),
  'tts-1-hd': SYNTHESIS(30),
  'gpt-4o-mini-tts': SYNTHESIS(15),
};

/**
 * A speech model's price: the operator's (MODEL_CATALOG, when it gives a speech rate), else
 * OpenAI's list price when the calls go to OpenAI itself; a local server's models cost nothing,
 * and so do Gemini's (billed by audio tokens, which the speech port does not see) unless priced.
 */
export function speechPriceOf(options: {
  catalog: ModelCatalog | undefined;
  provider: ProviderId;
  model: string;
  officialApi: boolean;
}): ModelPrice | undefined {
  const listed = options.catalog?.lookup(options.provider, options.model).price;
  if (listed?.perMinute !== undefined || listed?.perMillionCharacters !== undefined) return listed;
  const official = options.provider === 'openai' && options.officialApi;
  return official ? OPENAI_SPEECH_PRICES[options.model] : undefined;
}

/** Nano-dollars for seconds heard and characters spoken at a price. */
export function speechCostOf(
  price: ModelPrice | undefined,
  usage: { seconds?: number; characters?: number },
): number {
  return speechCost(
    { minutes: (usage.seconds ?? 0) / 60, characters: usage.characters ?? 0 },
    price,
  );
}
