import type { ProviderId } from './provider.ts';

/**
 * The audio every text-to-speech adapter yields: 16-bit little-endian signed PCM, one channel,
 * 24 kHz — what OpenAI's `pcm` format and Gemini's speech generation both return, and a rate
 * Opus encodes natively.
 */
export const SPEECH_PCM = Object.freeze({ sampleRate: 24_000, channels: 1, bytesPerSample: 2 });

/** Seconds of audio in `bytes` of SPEECH_PCM. */
export function pcmSeconds(bytes: number): number {
  return bytes / (SPEECH_PCM.sampleRate * SPEECH_PCM.channels * SPEECH_PCM.bytesPerSample);
}

/** One recording to transcribe. */
export interface TranscriptionRequest {
  /** The encoded file as received (OGG/Opus for a Discord voice message). */
  audio: Uint8Array;
  filename: string;
  /** The file's media type, e.g. `audio/ogg`. */
  mediaType: string;
  model: string;
  /** A hint in ISO-639-1 (`en`, `ja`); undefined lets the model detect it. */
  language?: string | undefined;
}

export interface Transcript {
  text: string;
}

/**
 * Speech to text. `transcribe` rejects with a classified ProviderError (the same kinds as a
 * chat call's); aborting `signal` cancels the upload and rejects promptly.
 */
export interface SpeechToText {
  readonly provider: ProviderId;
  transcribe(request: TranscriptionRequest, signal: AbortSignal): Promise<Transcript>;
  /**
   * The vendor's cheapest authenticated call for a model (a GET of its record), for `/doctor`:
   * resolves when the key works and the model exists, else rejects classified like `transcribe`.
   */
  checkModel(modelId: string, signal: AbortSignal): Promise<void>;
}

/** One piece of text to speak. */
export interface SpeechRequest {
  text: string;
  model: string;
  /** The vendor's voice name (`alloy`, `Kore`, a local server's `af_heart`, …). */
  voice: string;
}

/**
 * Text to speech. `synthesize` yields SPEECH_PCM chunks as the vendor streams them. It throws a
 * classified ProviderError before its first chunk or while streaming (a cut stream is
 * `network`); aborting `signal` closes the HTTP stream and ends the iterable.
 */
export interface TextToSpeech {
  readonly provider: ProviderId;
  synthesize(request: SpeechRequest, signal: AbortSignal): AsyncIterable<Uint8Array>;
}

/** The speech the operator set up (SPEECH_* settings): both directions, their models and limits. */
export interface SpeechService {
  readonly provider: ProviderId;
  /** The host of the operator's own speech server, named instead of the vendor; undefined for the vendor's. */
  readonly server: string | undefined;
  speechToText: SpeechToText;
  textToSpeech: TextToSpeech;
  transcriptionModel: string;
  speechModel: string;
  /** The voice when a persona names none. */
  defaultVoice: string;
  /** Longer voice messages are refused, politely, with this limit. */
  maxVoiceMessageSeconds: number;
  /** Nano-dollars for `seconds` of audio transcribed (0 on a local server). */
  transcriptionCost(seconds: number): number;
  /** Nano-dollars for `characters` of text spoken (0 on a local server). */
  speechCost(characters: number): number;
}
