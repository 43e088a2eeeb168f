import type { Clock, RandomSource } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import type { ProviderId } from '../../core/provider.ts';
import type { SpeechService, SpeechToText, TextToSpeech } from '../../core/speech.ts';
import type { ModelCatalog } from '../model-catalog.ts';
import { RetryingSpeech } from '../retrying-speech.ts';
import { speechCostOf, speechPriceOf } from './speech-prices.ts';

/** The providers whose SDKs speak: OpenAI (and the servers that serve its routes), Gemini. */
export type SpeechProvider = Extract<ProviderId, 'openai' | 'google'>;

export interface SpeechSettings {
  provider: SpeechProvider;
  apiKey: string | undefined;
  baseUrl: string | undefined;
  transcriptionModel: string;
  speechModel: string;
  voice: string;
  maxVoiceMessageSeconds: number;
}

/**
 * The operator's speech service: OpenAI's speech routes (or a local server's) or Gemini's,
 * behind the one speech retry. The vendor's SDK is imported here, when speech is configured.
 */
export async function createSpeechService(options: {
  settings: SpeechSettings;
  /** The operator's prices (MODEL_CATALOG) come first. */
  catalog?: ModelCatalog | undefined;
  clock: Clock;
  random: RandomSource;
  logger: Logger;
}): Promise<SpeechService> {
  const { settings, logger } = options;
  const price = (model: string) =>
    speechPriceOf({
      catalog: options.catalog,
      provider: settings.provider,
      model,
      officialApi: settings.baseUrl === undefined,
    });
  const speech = new RetryingSpeech({
    speech: await vendorSpeech(settings, logger),
    clock: options.clock,
    random: options.random,
    logger,
  });
  return {
    provider: settings.provider,
    server: settings.baseUrl === undefined ? undefined : hostOf(settings.baseUrl),
    speechToText: speech,
    textToSpeech: speech,
    transcriptionModel: settings.transcriptionModel,
    speechModel: settings.speechModel,
    defaultVoice: settings.voice,
    maxVoiceMessageSeconds: settings.maxVoiceMessageSeconds,
    transcriptionCost: (seconds) => speechCostOf(price(settings.transcriptionModel), { seconds }),
    speechCost: (characters) => speechCostOf(price(settings.speechModel), { characters }),
  };
}

async function vendorSpeech(
  settings: SpeechSettings,
  logger: Logger,
): Promise<SpeechToText & TextToSpeech> {
  const { apiKey, baseUrl } = settings;
  if (settings.provider === 'google') {
    const { GeminiSpeech } = await import('../google/gemini-speech.ts');
    return new GeminiSpeech({ apiKey, baseUrl });
  }
  const { OpenAISpeech } = await import('../openai/openai-speech.ts');
  return new OpenAISpeech({ apiKey, baseUrl, logger });
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
