import OpenAI from 'openai';
import type { ChatRequest } from '../../core/chat.ts';
import type { ChatModel, StreamCallOptions } from '../../core/provider.ts';
import type { StreamPart } from '../../core/stream-part.ts';
import { runModelCheck } from '../model-check.ts';
import { runProviderStream } from '../provider-stream.ts';
import { sdkLogger } from '../sdk-logger.ts';
import {
  DEFAULT_TIMEOUT_MS,
  firstByteDeadline,
  type VendorModelOptions,
} from '../vendor-model-options.ts';
import { classifyOpenAIError } from './openai-error-classifier.ts';
import { toOpenAIRequest } from './openai-request.ts';
import { OpenAIStreamMapper } from './openai-stream-mapper.ts';

/**
 * Local OpenAI-compatible servers need no key, but the SDK refuses to start without one; the
 * placeholder is sent nowhere because the Authorization header is removed for keyless clients.
 */
const KEYLESS_PLACEHOLDER = 'no-key';

/** OpenAI chat.completions, and every server that speaks it (Ollama, LM Studio, vLLM, llama.cpp, OpenRouter). */
export class OpenAIChatModel implements ChatModel {
  readonly provider = 'openai' as const;
  readonly #client: OpenAI;
  readonly #options: VendorModelOptions;
  readonly #officialApi: boolean;

  constructor(options: VendorModelOptions) {
    this.#options = options;
    this.#officialApi = options.baseUrl === undefined;
    const keyless = options.apiKey === undefined;
    // Every option is explicit so the SDK never falls back to reading the environment itself.
    this.#client = new OpenAI({
      apiKey: options.apiKey ?? KEYLESS_PLACEHOLDER,
      baseURL: options.baseUrl ?? 'https://api.openai.com/v1',
      organization: null,
      project: null,
      adminAPIKey: null,
      webhookSecret: null,
      // Retries live in RetryingChatModel, the one place that may retry.
      maxRetries: 0,
      timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      logger: sdkLogger(options.logger),
      logLevel: 'warn',
      ...(keyless ? { defaultHeaders: { Authorization: null } } : {}),
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
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

  /** GET /models: the first page, which is the whole list on the local servers that use it. */
  async listModels(signal: AbortSignal): Promise<readonly string[]> {
    let ids: string[] = [];
    await runModelCheck({
      lookup: async (requestSignal) => {
        const page = await this.#client.models.list({ signal: requestSignal });
        ids = page.data.map((model) => model.id);
      },
      classify: classifyOpenAIError,
      signal,
    });
    return ids;
  }
}
