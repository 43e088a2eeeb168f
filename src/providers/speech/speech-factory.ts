import type { Clock, RandomSource } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import type { SpeechService } from '../../core/speech.ts';
import { RetryingSpeech } from '../retrying-speech.ts';

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
  clock: Clock;
  random: RandomSource;
  logger: Logger;
}): Promise<SpeechService> {
  const { settings, logger } = options;
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
  };
}
