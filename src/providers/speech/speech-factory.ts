import type { Clock, RandomSource } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import type { SpeechService } from '../../core/speech.ts';
import type { ModelCatalog } from '../model-catalog.ts';
import { RetryingSpeech } from '../retrying-speech.ts';
import { speechCostOf, speechPriceOf } from './speech-prices.ts';

export interface SpeechSettings {
  apiKey: string | undefined;
  baseUrl: string | undefined;
  transcriptionModel: string;
  speechModel: string;
  voice: string;
  maxVoiceMessageSeconds: number;
}

/**
 * The operator's speech service: OpenAI's speech routes (or a local server's), behind the one
 * speech retry. The SDK is imported here, when speech is configured, not at every start.
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
    speechPriceOf({ catalog: options.catalog, model, officialApi: settings.baseUrl === undefined });
  const { OpenAISpeech } = await import('../openai/openai-speech.ts');
  const speech = new RetryingSpeech({
    speech: new OpenAISpeech({ apiKey: settings.apiKey, baseUrl: settings.baseUrl, logger }),
    clock: options.clock,
    random: options.random,
    logger,
  });
  return {
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
