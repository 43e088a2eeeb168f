import type OpenAI from 'openai';
import { toFile } from 'openai';
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
import { createOpenAIClient } from './openai-client.ts';
import { classifyOpenAIError } from './openai-error-classifier.ts';

/**
 * OpenAI's `audio/transcriptions` (a multipart upload) and `audio/speech` (raw 24 kHz PCM,
 * streamed as it is generated), and the OpenAI-compatible local servers that serve the same
 * routes (speaches/faster-whisper, Kokoro-FastAPI).
 */
export class OpenAISpeech implements SpeechToText, TextToSpeech {
  readonly provider = 'openai' as const;
  readonly #client: OpenAI;

  constructor(options: Pick<VendorModelOptions, 'apiKey' | 'baseUrl' | 'logger' | 'timeoutMs'>) {
    this.#client = createOpenAIClient(options);
  }

  async transcribe(request: TranscriptionRequest, signal: AbortSignal): Promise<Transcript> {
    try {
      const file = await toFile(request.audio, request.filename, { type: request.mediaType });
      const result = await this.#client.audio.transcriptions.create(
        {
          file,
          model: request.model,
          response_format: 'json',
          ...(request.language === undefined ? {} : { language: request.language }),
        },
        { signal },
      );
      return { text: result.text.trim() };
    } catch (error) {
      signal.throwIfAborted();
      throw classifyOpenAIError(error);
    }
  }

  checkModel(modelId: string, signal: AbortSignal): Promise<void> {
    return runModelCheck({
      lookup: (requestSignal) => this.#client.models.retrieve(modelId, { signal: requestSignal }),
      classify: classifyOpenAIError,
      signal,
    });
  }

  async *synthesize(
    request: SpeechRequest,
    signal: AbortSignal,
  ): AsyncGenerator<Uint8Array, void, undefined> {
    let body: ReadableStream<Uint8Array>;
    try {
      const response = await this.#client.audio.speech.create(
        { model: request.model, voice: request.voice, input: request.text, response_format: 'pcm' },
        { signal },
      );
      if (response.body === null) throw new Error('terminated');
      body = response.body;
    } catch (error) {
      signal.throwIfAborted();
      throw classifyOpenAIError(error);
    }
    try {
      yield* wholeSamples(body);
    } catch (error) {
      signal.throwIfAborted();
      throw classifyOpenAIError(error);
    }
  }
}
