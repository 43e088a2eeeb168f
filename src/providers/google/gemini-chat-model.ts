import { GoogleGenAI } from '@google/genai';
import type { ChatRequest } from '../../core/chat.ts';
import type { ChatModel, StreamCallOptions } from '../../core/provider.ts';
import type { StreamPart } from '../../core/stream-part.ts';
import { runModelCheck } from '../model-check.ts';
import { runProviderStream } from '../provider-stream.ts';
import { firstByteDeadline, type VendorModelOptions } from '../vendor-model-options.ts';
import { classifyGeminiError } from './gemini-error-classifier.ts';
import { toGeminiRequest } from './gemini-request.ts';
import { GeminiRetryAfter } from './gemini-retry-after.ts';
import { GeminiStreamMapper } from './gemini-stream-mapper.ts';

/** The Gemini API (Google AI Studio keys), streamed with `streamGenerateContent?alt=sse`. */
export class GeminiChatModel implements ChatModel {
  readonly provider = 'google' as const;
  readonly #client: GoogleGenAI;
  readonly #options: VendorModelOptions;

  constructor(options: VendorModelOptions) {
    this.#options = options;
    // Key, backend and base URL are explicit so the SDK does not pick them from the environment.
    // No SDK timeout: Gemini's covers the whole streamed body, which would cut long answers;
    // a stalled call is ended by the caller's signal instead.
    // The SDK's option types take no explicit `undefined`: an unset key or base URL is left out.
    this.#client = new GoogleGenAI({
      ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
      vertexai: false,
      httpOptions: {
        ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }),
        ...(options.fetch ? { fetch: options.fetch } : {}),
      },
    });
  }

  stream(
    request: ChatRequest,
    signal: AbortSignal,
    options?: StreamCallOptions,
  ): AsyncIterable<StreamPart> {
    const model = this.#options.catalog.lookup('google', request.model);
    const retryAfter = new GeminiRetryAfter(this.#options.fetch);
    return runProviderStream({
      open: (requestSignal) => {
        const parameters = toGeminiRequest(request, { model, signal: requestSignal });
        return this.#client.models.generateContentStream({
          ...parameters,
          config: { ...parameters.config, httpOptions: { fetch: retryAfter.fetch } },
        });
      },
      mapper: new GeminiStreamMapper(),
      classify: (error) => retryAfter.apply(classifyGeminiError(error)),
      signal,
      firstByte: firstByteDeadline('google', this.#options, options),
    });
  }

  /** GET {version}/models/{id}: free, and answers 404 NOT_FOUND for an unknown model. */
  checkModel(modelId: string, signal: AbortSignal): Promise<void> {
    return runModelCheck({
      lookup: (requestSignal) =>
        this.#client.models.get({ model: modelId, config: { abortSignal: requestSignal } }),
      classify: classifyGeminiError,
      signal,
    });
  }
}
