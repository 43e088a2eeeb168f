import type OpenAI from 'openai';
import type { ChatRequest } from '../../core/chat.ts';
import type { ChatModel, StreamCallOptions } from '../../core/provider.ts';
import type { StreamPart } from '../../core/stream-part.ts';
import { runModelCheck } from '../model-check.ts';
import { runProviderStream } from '../provider-stream.ts';
import { firstByteDeadline, type VendorModelOptions } from '../vendor-model-options.ts';
import { createOpenAIClient } from './openai-client.ts';
import { classifyOpenAIError } from './openai-error-classifier.ts';
import { toOpenAIRequest } from './openai-request.ts';
import { OpenAIStreamMapper } from './openai-stream-mapper.ts';

/** OpenAI chat.completions, and every server that speaks it (Ollama, LM Studio, vLLM, llama.cpp, OpenRouter). */
export class OpenAIChatModel implements ChatModel {
  readonly provider = 'openai' as const;
  readonly #client: OpenAI;
  readonly #options: VendorModelOptions;
  readonly #officialApi: boolean;

  constructor(options: VendorModelOptions) {
    this.#options = options;
    this.#officialApi = options.baseUrl === undefined;
    this.#client = createOpenAIClient(options);
  }

  stream(
    request: ChatRequest,
    signal: AbortSignal,
    options?: StreamCallOptions,
  ): AsyncIterable<StreamPart> {
    const model = this.#options.catalog.lookup('openai', request.model);
    const body = toOpenAIRequest(request, { officialApi: this.#officialApi, model });
    return runProviderStream({
      open: (requestSignal) =>
        this.#client.chat.completions.create(body, { signal: requestSignal }),
      mapper: new OpenAIStreamMapper(),
      classify: classifyOpenAIError,
      signal,
      firstByte: firstByteDeadline('openai', this.#options, options),
    });
  }

  /** GET /models/{id}. Local servers that lack the route answer 404, classified `model` too. */
  checkModel(modelId: string, signal: AbortSignal): Promise<void> {
    return runModelCheck({
      lookup: (requestSignal) => this.#client.models.retrieve(modelId, { signal: requestSignal }),
      classify: classifyOpenAIError,
      signal,
    });
  }
}
