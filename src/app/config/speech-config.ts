import type { ProviderId } from '../../core/provider.ts';
import { optionalText, optionalUrl } from './config-fields.ts';

/**
 * Speech (voice messages in and out): off unless SPEECH_PROVIDER names a provider. OpenAI's
 * speech routes are also served by local servers (speaches, Kokoro-FastAPI): SPEECH_BASE_URL
 * points at one, and then no key is needed.
 */
export interface SpeechConfig {
  provider: Extract<ProviderId, 'openai'>;
  apiKey: string | undefined;
  baseUrl: string | undefined;
  transcriptionModel: string;
  speechModel: string;
  voice: string;
  maxVoiceMessageSeconds: number;
}

export const SPEECH_PROVIDERS = ['openai'] as const;
export const DEFAULT_SPEECH = Object.freeze({
  transcriptionModel: 'whisper-1',
  speechModel: 'gpt-4o-mini-tts',
  voice: 'alloy',
  maxVoiceMessageSeconds: 180,
});
const MAX_VOICE_SECONDS_CEILING = 1_200;

export const speechEnvironmentSchema = {
  SPEECH_PROVIDER: optionalText.refine(
    (value) => value === undefined || (SPEECH_PROVIDERS as readonly string[]).includes(value),
    `must be ${SPEECH_PROVIDERS.join(' or ')} (also for OpenAI-compatible local speech servers), or unset for no speech`,
  ),
  SPEECH_API_KEY: optionalText,
  SPEECH_BASE_URL: optionalUrl(['http:', 'https:']),
  TRANSCRIPTION_MODEL: optionalText,
  SPEECH_MODEL: optionalText,
  SPEECH_VOICE: optionalText,
  VOICE_MESSAGE_MAX_SECONDS: optionalText.refine(
    (value) =>
      value === undefined ||
      (/^\d{1,4}$/.test(value) && Number(value) >= 1 && Number(value) <= MAX_VOICE_SECONDS_CEILING),
    `must be a whole number of seconds from 1 to ${MAX_VOICE_SECONDS_CEILING}`,
  ),
};

type SpeechValues = { [Name in keyof typeof speechEnvironmentSchema]?: string | undefined } & {
  OPENAI_API_KEY?: string | undefined;
  OPENAI_BASE_URL?: string | undefined;
};

/**
 * The speech settings, or undefined when speech is off. Without SPEECH_BASE_URL speech goes
 * where the chat's OpenAI calls go (OPENAI_BASE_URL, or OpenAI) with their key unless
 * SPEECH_API_KEY is set; a speech server of its own (SPEECH_BASE_URL) gets SPEECH_API_KEY only,
 * so the chat key is never sent to another server.
 */
export function parseSpeech(values: SpeechValues): SpeechConfig | undefined {
  if (values.SPEECH_PROVIDER === undefined) return undefined;
  const ownServer = values.SPEECH_BASE_URL !== undefined;
  return {
    provider: 'openai',
    apiKey: values.SPEECH_API_KEY ?? (ownServer ? undefined : values.OPENAI_API_KEY),
    baseUrl: values.SPEECH_BASE_URL ?? values.OPENAI_BASE_URL,
    transcriptionModel: values.TRANSCRIPTION_MODEL ?? DEFAULT_SPEECH.transcriptionModel,
    speechModel: values.SPEECH_MODEL ?? DEFAULT_SPEECH.speechModel,
    voice: values.SPEECH_VOICE ?? DEFAULT_SPEECH.voice,
    maxVoiceMessageSeconds:
      values.VOICE_MESSAGE_MAX_SECONDS === undefined
        ? DEFAULT_SPEECH.maxVoiceMessageSeconds
        : Number(values.VOICE_MESSAGE_MAX_SECONDS),
  };
}
