import { createHash } from 'node:crypto';
import { systemClock, type Clock, type RandomSource } from '../core/clock.ts';
import { ProviderError } from '../core/errors.ts';
import { silentLogger, type Logger } from '../core/logger.ts';
import type { ChatModel, ProviderId } from '../core/provider.ts';
import { ModelCatalog, type ModelInfo } from './model-catalog.ts';
import {
  DEFAULT_FIRST_BYTE_TIMEOUT_MS,
  RetryingChatModel,
  type RetryPolicy,
} from './retrying-chat-model.ts';
import { listServerModels } from './openai/server-model-list.ts';
import { LazyVendorModel } from './vendor-model-loader.ts';
import type { VendorModelOptions } from './vendor-model-options.ts';

/** The operator's environment defaults (the same shapes as `Config`). */
export interface OperatorDefaults {
  defaultProvider: ProviderId;
  defaultModel: string | undefined;
  providerKeys: Readonly<Record<ProviderId, string | undefined>>;
  providerBaseUrls: Readonly<Record<ProviderId, string | undefined>>;
}

/** What a scope chose; `undefined` means "the operator's default". */
export interface ModelChoice {
  provider: ProviderId | undefined;
  model: string | undefined;
  /** The scope's own key, already decrypted; it belongs to the scope's provider. */
  apiKey: string | undefined;
}

/** A ready-to-stream model and what it resolved to. */
export interface ResolvedModel {
  /** Wrapped in the retry policy; pass `modelId` as `ChatRequest.model`. */
  chatModel: ChatModel;
  provider: ProviderId;
  modelId: string;
  info: ModelInfo;
  /** Whose key pays: budgets and error messages differ for the scope's and the operator's key. */
  keySource: KeySource;
}

export type KeySource = 'scope' | 'operator' | 'none';

/**
 * What a live check of a choice found. A failure is a result, not a throw: `error.kind` says
 * why (`auth` for a missing or refused key, `model` for an unknown model, `timeout`, …).
 */
export type ProviderCheck =
  | { ok: true; provider: ProviderId; modelId: string; keySource: KeySource }
  | {
      ok: false;
      provider: ProviderId;
      modelId: string;
      keySource: KeySource;
      error: ProviderError;
    };

/**
 * What an OpenAI-compatible server of the operator's (OPENAI_BASE_URL without DEFAULT_MODEL)
 * offers at start: its one model is then the default; several need the operator's choice.
 */
export type ServerModelDiscovery =
  | { kind: 'not-needed' }
  | { kind: 'one'; server: string; model: string }
  | { kind: 'several'; server: string; models: readonly string[] }
  | { kind: 'none'; server: string }
  | { kind: 'unreachable'; server: string; error: ProviderError };

export interface ProviderFactoryOptions {
  defaults: OperatorDefaults;
  catalog?: ModelCatalog;
  clock?: Clock;
  random?: RandomSource;
  retry?: Partial<RetryPolicy>;
  logger?: Logger;
  /** SDK clients kept (one per provider, key and base URL). */
  cacheSize?: number;
  /** How long `check` waits for the provider before reporting a `timeout`. */
  checkTimeoutMs?: number;
  /**
   * Per provider: the longest a member waits for a provider that does not answer (see
   * RetryPolicy.firstByteTimeoutMs). A model's MODEL_CATALOG `firstByteTimeoutMs` wins.
   */
  firstByteTimeoutMs?: Partial<Record<ProviderId, number>>;
  /** Replaces how a vendor adapter is built (tests of the factory's own logic). */
  createVendorModel?: (provider: ProviderId, options: VendorModelOptions) => ChatModel;
}

const DEFAULT_CACHE_SIZE = 256;
/** A slash command defers within 3 s and its token lives 15 min; 10 s is a patient ceiling. */
const DEFAULT_CHECK_TIMEOUT_MS = 10_000;

/**
 * Builds the ChatModel a scope should talk to: its provider, model and key when it set them,
 * else the operator's. SDK clients are cached per (provider, key, base URL), so a busy server
 * reuses one client and its connection pool.
 */
export class ProviderFactory {
  readonly catalog: ModelCatalog;
  readonly #defaults: OperatorDefaults;
  readonly #clock: Clock;
  readonly #random: RandomSource;
  readonly #retry: Partial<RetryPolicy>;
  readonly #logger: Logger;
  readonly #cacheSize: number;
  readonly #checkTimeoutMs: number;
  readonly #firstByteTimeoutMs: Partial<Record<ProviderId, number>>;
  readonly #createVendorModel: (provider: ProviderId, options: VendorModelOptions) => ChatModel;
  readonly #clients = new Map<string, ChatModel>();
  /** The one model the operator's OpenAI-compatible server has, when DEFAULT_MODEL is unset. */
  #serverDefaultModel: string | undefined;

  constructor(options: ProviderFactoryOptions) {
    this.#defaults = options.defaults;
    this.catalog = options.catalog ?? new ModelCatalog();
    this.#clock = options.clock ?? systemClock;
    this.#random = options.random ?? Math.random;
    this.#retry = options.retry ?? {};
    this.#logger = options.logger ?? silentLogger;
    this.#cacheSize = options.cacheSize ?? DEFAULT_CACHE_SIZE;
    this.#checkTimeoutMs = options.checkTimeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS;
    this.#firstByteTimeoutMs = options.firstByteTimeoutMs ?? {};
    this.#createVendorModel =
      options.createVendorModel ??
      ((provider, vendorOptions) => new LazyVendorModel(provider, vendorOptions));
  }

  /** @throws ProviderError (kind `auth`) when no key is available for a provider that needs one. */
  resolve(choice: ModelChoice): ResolvedModel {
    const { provider, modelId } = this.#target(choice);
    const baseUrl = this.#defaults.providerBaseUrls[provider];
    const { apiKey, keySource } = this.#key(provider, choice.apiKey);
    const info = this.catalog.lookup(provider, modelId);
    const firstByteTimeoutMs =
      info.firstByteTimeoutMs ??
      this.#firstByteTimeoutMs[provider] ??
      this.#retry.firstByteTimeoutMs ??
      DEFAULT_FIRST_BYTE_TIMEOUT_MS;
    const chatModel = new RetryingChatModel({
      model: this.#client(provider, apiKey, baseUrl),
      clock: this.#clock,
      random: this.#random,
      policy: { ...this.#retry, firstByteTimeoutMs },
      logger: this.#logger,
    });
    return { chatModel, provider, modelId, info, keySource };
  }

  /**
   * Asks the provider, live and cheaply, whether the choice works: the key is accepted and the
   * model exists. Never throws for a provider failure (a missing key included); gives up with a
   * `timeout` failure after `checkTimeoutMs`.
   * @throws the signal's reason when `signal` aborts.
   */
  async check(choice: ModelChoice, signal: AbortSignal): Promise<ProviderCheck> {
    const { provider, modelId } = this.#target(choice);
    let resolved: ResolvedModel;
    try {
      resolved = this.resolve(choice);
    } catch (error) {
      if (!(error instanceof ProviderError)) throw error;
      return { ok: false, provider, modelId, keySource: 'none', error };
    }
    const { keySource } = resolved;
    const timeout = this.#checkTimeout(provider);
    try {
      await resolved.chatModel.checkModel(modelId, AbortSignal.any([signal, timeout.signal]));
      return { ok: true, provider, modelId, keySource };
    } catch (error) {
      if (!(error instanceof ProviderError)) throw error;
      this.#logger.debug({ provider, model: modelId, kind: error.kind }, 'provider check failed');
      return { ok: false, provider, modelId, keySource, error };
    } finally {
      timeout.cancel();
    }
  }

  /**
   * The models an OpenAI-compatible server of the operator's choosing (OPENAI_BASE_URL) says it
   * has, or undefined where the catalogue is the better list (the vendors' own APIs list every
   * embedding, audio and image model too). Gives up after `timeoutMs`.
   * @throws ProviderError (`auth`, `network`, `timeout`, …) when the server cannot be asked.
   */
  async listServerModels(
    choice: ModelChoice,
    options: { signal: AbortSignal; timeoutMs: number },
  ): Promise<readonly string[] | undefined> {
    const { provider } = this.target(choice);
    const baseUrl = this.#defaults.providerBaseUrls.openai;
    if (provider !== 'openai' || baseUrl === undefined) return undefined;
    const { apiKey } = this.#key(provider, choice.apiKey);
    const timeout = this.#checkTimeout(provider, options.timeoutMs);
    try {
      return await listServerModels({
        baseUrl,
        apiKey,
        signal: AbortSignal.any([options.signal, timeout.signal]),
      });
    } finally {
      timeout.cancel();
    }
  }

  /**
   * With OPENAI_BASE_URL as the default provider and no DEFAULT_MODEL, asks the server which
   * models it has: a local server (Ollama, LM Studio, vLLM, llama.cpp) has none of OpenAI's,
   * so the catalogue's default would not exist there. One model becomes the default.
   */
  async discoverServerDefault(options: {
    signal: AbortSignal;
    timeoutMs: number;
  }): Promise<ServerModelDiscovery> {
    const defaults = this.#defaults;
    const server = this.serverName('openai');
    if (
      defaults.defaultProvider !== 'openai' ||
      defaults.defaultModel !== undefined ||
      server === undefined
    ) {
      return { kind: 'not-needed' };
    }
    let models: readonly string[];
    try {
      const choice = { provider: 'openai' as const, model: undefined, apiKey: undefined };
      models = (await this.listServerModels(choice, options)) ?? [];
    } catch (error) {
      if (!(error instanceof ProviderError)) throw error;
      return { kind: 'unreachable', server, error };
    }
    if (models.length === 0) return { kind: 'none', server };
    if (models.length > 1) return { kind: 'several', server, models };
    this.#serverDefaultModel = models[0];
    return { kind: 'one', server, model: models[0] as string };
  }

  /**
   * How to name where a provider's requests go: the host of the operator's own server (a base
   * URL: "127.0.0.1:11434", not "OpenAI"), or undefined for the vendor itself.
   */
  serverName(provider: ProviderId): string | undefined {
    const baseUrl = this.#defaults.providerBaseUrls[provider];
    if (baseUrl === undefined) return undefined;
    try {
      return new URL(baseUrl).host;
    } catch {
      return baseUrl;
    }
  }

  /** The provider and model a choice stands for, the operator's defaults filling the gaps. */
  target(choice: Pick<ModelChoice, 'provider' | 'model'>): {
    provider: ProviderId;
    modelId: string;
  } {
    return this.#target(choice);
  }

  /**
   * Whose key a scope without its own key uses with `provider`: the operator's, none at all (a
   * local OpenAI-compatible server), or undefined when there is no key to use.
   */
  fallbackKeySource(provider: ProviderId): Exclude<KeySource, 'scope'> | undefined {
    if (this.#defaults.providerKeys[provider] !== undefined) return 'operator';
    // Local OpenAI-compatible servers (Ollama, LM Studio, vLLM, llama.cpp) take no key.
    if (provider === 'openai' && this.#defaults.providerBaseUrls.openai !== undefined)
      return 'none';
    return undefined;
  }

  /** A signal the injected clock aborts, with a `timeout` ProviderError, after `timeoutMs`. */
  #checkTimeout(
    provider: ProviderId,
    timeoutMs = this.#checkTimeoutMs,
  ): { signal: AbortSignal; cancel(): void } {
    const timeout = new AbortController();
    const cancelled = new AbortController();
    void this.#clock.sleep(timeoutMs, cancelled.signal).then(
      () => {
        const message = `${provider}: no answer within ${timeoutMs} ms`;
        timeout.abort(new ProviderError({ kind: 'timeout', message, provider }));
      },
      () => undefined,
    );
    return { signal: timeout.signal, cancel: () => cancelled.abort() };
  }

  #target(choice: Pick<ModelChoice, 'provider' | 'model'>): {
    provider: ProviderId;
    modelId: string;
  } {
    const defaults = this.#defaults;
    const provider = choice.provider ?? defaults.defaultProvider;
    const modelId =
      choice.model ??
      // The operator's default model names a model of the default provider only.
      (provider === defaults.defaultProvider
        ? (defaults.defaultModel ?? this.#serverDefaultModel)
        : undefined) ??
      this.catalog.defaultModel(provider);
    return { provider, modelId };
  }

  #key(
    provider: ProviderId,
    scopeKey: string | undefined,
  ): { apiKey: string | undefined; keySource: KeySource } {
    if (scopeKey !== undefined && scopeKey !== '') return { apiKey: scopeKey, keySource: 'scope' };
    const fallback = this.fallbackKeySource(provider);
    if (fallback === 'operator')
      return { apiKey: this.#defaults.providerKeys[provider], keySource: 'operator' };
    if (fallback === 'none') return { apiKey: undefined, keySource: 'none' };
    throw new ProviderError({
      kind: 'auth',
      message: `no API key for ${provider}: set one for this server or in the operator's environment`,
      retryable: false,
      provider,
    });
  }

  #client(
    provider: ProviderId,
    apiKey: string | undefined,
    baseUrl: string | undefined,
  ): ChatModel {
    // The cache key holds a hash, not the key itself, so a heap dump of the map leaks nothing new.
    const keyHash =
      apiKey === undefined ? '-' : createHash('sha256').update(apiKey).digest('base64url');
    const cacheKey = `${provider}\u0000${baseUrl ?? ''}\u0000${keyHash}`;
    const cached = this.#clients.get(cacheKey);
    if (cached) {
      // Re-insert to mark it most recently used (Map order is insertion order).
      this.#clients.delete(cacheKey);
      this.#clients.set(cacheKey, cached);
      return cached;
    }
    const client = this.#createVendorModel(provider, {
      apiKey,
      baseUrl,
      catalog: this.catalog,
      logger: this.#logger.child({ provider }),
      clock: this.#clock,
    });
    this.#clients.set(cacheKey, client);
    if (this.#clients.size > this.#cacheSize) {
      this.#clients.delete(this.#clients.keys().next().value as string);
    }
    return client;
  }
}
