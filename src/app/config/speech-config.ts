import type { SpeechProvider, SpeechSettings } from '../../providers/speech/speech-factory.ts';
import { optionalText, optionalUrl } from './config-fields.ts';

/**
 * Speech (voice messages in and out): off unless SPEECH_PROVIDER names a provider. OpenAI's
 * speech routes are also served by local servers (speaches, Kokoro-FastAPI): SPEECH_BASE_URL
 * points at one, and then no key is needed. Gemini hears through audio understanding and
 * speaks through its TTS models. (The speech factory's settings, as the environment gives them.)
 */
export type SpeechConfig = SpeechSettings;

export const SPEECH_PROVIDERS = ['openai', 'google'] as const satisfies readonly SpeechProvider[];

/** Each speech provider's models and voice unless the operator names others. */
export const DEFAULT_SPEECH: Readonly<
  Record<SpeechProvider, { transcriptionModel: string; speechModel: string; voice: string }>
> = {
  openai: { transcriptionModel: 'whisper-1', speechModel: 'gpt-4o-mini-tts', voice: 'alloy' },
  google: {
    transcriptionModel: 'gemini-2.5-flash',
    speechModel: 'gemini-2.5-flash-preview-tts',
    voice: 'Kore',
  },
};
export const DEFAULT_VOICE_MESSAGE_MAX_SECONDS = 180;
const MAX_VOICE_SECONDS_CEILING = 1_200;

export const speechEnvironmentSchema = {
  SPEECH_PROVIDER: optionalText.refine(
    (value) => value === undefined || (SPEECH_PROVIDERS as readonly string[]).includes(value),
    `must be ${SPEECH_PROVIDERS.join(' or ')} (openai also for OpenAI-compatible local speech servers), or unset for no speech`,
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
  GOOGLE_API_KEY?: string | undefined;
  GOOGLE_GEMINI_BASE_URL?: string | undefined;
};

/**
 * The speech settings, or undefined when speech is off. Without SPEECH_BASE_URL speech goes
 * where the chat's calls to that provider go (OPENAI_BASE_URL or GOOGLE_GEMINI_BASE_URL, else
 * the vendor) with their key unless SPEECH_API_KEY is set; a speech server of its own
 * (SPEECH_BASE_URL) gets SPEECH_API_KEY only, so a chat key is never sent to another server.
 */
export function parseSpeech(values: SpeechValues): SpeechConfig | undefined {
  if (values.SPEECH_PROVIDER === undefined) return undefined;
  const provider = values.SPEECH_PROVIDER as SpeechProvider;
  const chat =
    provider === 'openai'
      ? { key: values.OPENAI_API_KEY, baseUrl: values.OPENAI_BASE_URL }
      : { key: values.GOOGLE_API_KEY, baseUrl: values.GOOGLE_GEMINI_BASE_URL };
  const ownServer = values.SPEECH_BASE_URL !== undefined;
  const defaults = DEFAULT_SPEECH[provider];
  return {
    provider,
    apiKey: values.SPEECH_API_KEY ?? (ownServer ? undefined : chat.key),
    baseUrl: values.SPEECH_BASE_URL ?? chat.baseUrl,
    transcriptionModel: values.TRANSCRIPTION_MODEL ?? defaults.transcriptionModel,
    speechModel: values.SPEECH_MODEL ?? defaults.speechModel,
    voice: values.SPEECH_VOICE ?? defaults.voice,
    maxVoiceMessageSeconds:
      values.VOICE_MESSAGE_MAX_SECONDS === undefined
        ? DEFAULT_VOICE_MESSAGE_MAX_SECONDS
        : Number(values.VOICE_MESSAGE_MAX_SECONDS),
  };
}
