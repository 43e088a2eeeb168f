import Anthropic from '@anthropic-ai/sdk';
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
import { classifyAnthropicError } from './anthropic-error-classifier.ts';
import { toAnthropicRequest } from './anthropic-request.ts';
import { AnthropicStreamMapper } from './anthropic-stream-mapper.ts';

/** Anthropic Messages API, streamed. */
export class AnthropicChatModel implements ChatModel {
  readonly provider = 'anthropic' as const;
  readonly #client: Anthropic;
  readonly #options: VendorModelOptions;

  constructor(options: VendorModelOptions) {
    this.#options = options;
    // A key is passed explicitly, so the SDK reads no credential (or profile) from the
    // environment; the factory refuses to build this adapter without one.
    this.#client = new Anthropic({
      apiKey: options.apiKey ?? null,
      baseURL: options.baseUrl ?? 'https://api.anthropic.com',
      webhookKey: null,
      // Retries live in RetryingChatModel, the one place that may retry.
      maxRetries: 0,
      timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      logger: sdkLogger(options.logger),
      logLevel: 'warn',
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
  }

  stream(
    request: ChatRequest,
    signal: AbortSignal,
    options?: StreamCallOptions,
  ): AsyncIterable<StreamPart> {
    const model = this.#options.catalog.lookup('anthropic', request.model);
    const body = toAnthropicRequest(request, model);
    return runProviderStream({
      open: (requestSignal) => this.#client.messages.create(body, { signal: requestSignal }),
      mapper: new AnthropicStreamMapper(),
      classify: classifyAnthropicError,
      signal,
      firstByte: firstByteDeadline('anthropic', this.#options, options),
    });
  }

  /** GET /v1/models/{id}: free, and answers 404 `not_found_error` for an unknown model. */
  checkModel(modelId: string, signal: AbortSignal): Promise<void> {
    return runModelCheck({
      lookup: (requestSignal) =>
        this.#client.models.retrieve(modelId, {}, { signal: requestSignal }),
      classify: classifyAnthropicError,
      signal,
    });
  }
}
