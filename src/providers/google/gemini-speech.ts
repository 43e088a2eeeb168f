import { GoogleGenAI, Modality } from '@google/genai';
import type {
  SpeechRequest,
  SpeechToText,
  TextToSpeech,
  Transcript,
  TranscriptionRequest,
} from '../../core/speech.ts';
import { runModelCheck } from '../model-check.ts';
import { wholeSamples } from '../speech/pcm-alignment.ts';
import type { VendorModelOptions } from '../vendor-model-options.ts';
import { classifyGeminiError } from './gemini-error-classifier.ts';

/** What the model is asked to do with a recording: the words, nothing else. */
const TRANSCRIBE_INSTRUCTION =
  'Transcribe this voice message exactly, in the language spoken. Answer with the transcript only: no quotes, no notes, no translation.';

/**
 * Gemini's audio understanding (the recording inline in a generateContent call) and speech
 * generation (a TTS model streaming `audio/L16;rate=24000` parts), through @google/genai.
 */
export class GeminiSpeech implements SpeechToText, TextToSpeech {
  readonly provider = 'google' as const;
  readonly #client: GoogleGenAI;

  constructor(options: Pick<VendorModelOptions, 'apiKey' | 'baseUrl'>) {
    // As for chat: key, backend and base URL explicit, nothing read from the environment.
    this.#client = new GoogleGenAI({
      ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
      vertexai: false,
      httpOptions: options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl },
    });
  }

  async transcribe(request: TranscriptionRequest, signal: AbortSignal): Promise<Transcript> {
    try {
      const response = await this.#client.models.generateContent({
        model: request.model,
        contents: [
          {
            role: 'user',
            parts: [
              {
                inlineData: {
                  mimeType: request.mediaType,
                  data: Buffer.from(request.audio).toString('base64'),
                },
              },
              { text: TRANSCRIBE_INSTRUCTION },
            ],
          },
        ],
        config: { temperature: 0, abortSignal: signal },
      });
      return { text: (response.text ?? '').trim() };
    } catch (error) {
      signal.throwIfAborted();
      throw classifyGeminiError(error);
    }
  }

  checkModel(modelId: string, signal: AbortSignal): Promise<void> {
    return runModelCheck({
      lookup: (requestSignal) =>
        this.#client.models.get({ model: modelId, config: { abortSignal: requestSignal } }),
      classify: classifyGeminiError,
      signal,
    });
  }

  async *synthesize(
    request: SpeechRequest,
    signal: AbortSignal,
  ): AsyncGenerator<Uint8Array, void, undefined> {
    try {
      const stream = await this.#client.models.generateContentStream({
        model: request.model,
        contents: [{ role: 'user', parts: [{ text: request.text }] }],
        config: {
          responseModalities: [Modality.AUDIO],
          speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: request.voice } } },
          abortSignal: signal,
        },
      });
      yield* wholeSamples(audioOf(stream));
    } catch (error) {
      signal.throwIfAborted();
      throw classifyGeminiError(error);
    }
  }
}

/** The PCM of every inline audio part, as the chunks arrive. */
async function* audioOf(
  stream: AsyncIterable<{
    candidates?: Array<{ content?: { parts?: Array<{ inlineData?: { data?: string } }> } }>;
  }>,
): AsyncGenerator<Uint8Array, void, undefined> {
  for await (const chunk of stream) {
    for (const part of chunk.candidates?.[0]?.content?.parts ?? []) {
      const data = part.inlineData?.data;
      if (data !== undefined && data !== '') yield new Uint8Array(Buffer.from(data, 'base64'));
    }
  }
}
