import type { ChatRequest } from '../core/chat.ts';
import type { ChatModel, ProviderId, StreamCallOptions } from '../core/provider.ts';
import type { StreamPart } from '../core/stream-part.ts';
import type { VendorModelOptions } from './vendor-model-options.ts';

type VendorModelClass = new (options: VendorModelOptions) => ChatModel;

/**
 * Each vendor's adapter, imported the first time a turn needs that vendor: an SDK costs 4–7 MB
 * of heap and 20–30 MB of resident memory, and most operators configure one provider.
 */
const VENDOR_MODULES: Record<ProviderId, () => Promise<VendorModelClass>> = {
  openai: async () => (await import('./openai/openai-chat-model.ts')).OpenAIChatModel,
  anthropic: async () => (await import('./anthropic/anthropic-chat-model.ts')).AnthropicChatModel,
  google: async () => (await import('./google/gemini-chat-model.ts')).GeminiChatModel,
};

const loaded = new Map<ProviderId, Promise<VendorModelClass>>();

/** The vendor's adapter class, its module imported once per process. */
function loadVendorModel(provider: ProviderId): Promise<VendorModelClass> {
  let loading = loaded.get(provider);
  if (loading === undefined) {
    loading = VENDOR_MODULES[provider]();
    // A failed import (a broken install) is retried by the next turn, not cached.
    loading.catch(() => loaded.delete(provider));
    loaded.set(provider, loading);
  }
  return loading;
}

/**
 * A ChatModel whose vendor adapter (and SDK) is built on its first call. `resolve` stays
 * synchronous; the import is awaited inside `stream`, where a turn already waits.
 */
export class LazyVendorModel implements ChatModel {
  readonly provider: ProviderId;
  readonly #options: VendorModelOptions;
  #model: Promise<ChatModel> | undefined;

  constructor(provider: ProviderId, options: VendorModelOptions) {
    this.provider = provider;
    this.#options = options;
  }

  async *stream(
    request: ChatRequest,
    signal: AbortSignal,
    options?: StreamCallOptions,
  ): AsyncIterable<StreamPart> {
    const model = await this.#built();
    yield* model.stream(request, signal, options);
  }

  async checkModel(modelId: string, signal: AbortSignal): Promise<void> {
    return (await this.#built()).checkModel(modelId, signal);
  }

  #built(): Promise<ChatModel> {
    if (this.#model === undefined) {
      this.#model = loadVendorModel(this.provider).then((Model) => new Model(this.#options));
      this.#model.catch(() => (this.#model = undefined));
    }
    return this.#model;
  }
}
