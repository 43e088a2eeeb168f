import type { ChatRequest } from '../core/chat.ts';
import type { Clock, RandomSource } from '../core/clock.ts';
import { ProviderError, isAbortError } from '../core/errors.ts';
import { silentLogger, type Logger } from '../core/logger.ts';
import type { ChatModel, ProviderId } from '../core/provider.ts';
import type { StreamPart } from '../core/stream-part.ts';
import { FirstByteTimeoutError } from './first-byte-timeout.ts';

export interface RetryPolicy {
  /** Attempts in total, the first included. */
  maxAttempts: number;
  /** The first backoff ceiling; doubles per attempt (full jitter picks uniformly below it). */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A provider asking for a longer wait than this gets its error surfaced instead of a stall. */
  maxRetryAfterMs: number;
  /**
   * The longest a member waits for a provider that does not answer at all: each attempt gets
   * half of it for its response to start, a first attempt that gets none is retried once at
   * once, and a retry that gets none either ends the call with a `timeout`.
   */
  firstByteTimeoutMs: number;
}

/**
 * The backoff of a retryable failure before attempt `attempt + 1`: exponential with full jitter,
 * never shorter than the provider's retry-after; undefined when the provider asks for longer
 * than the policy waits (its error is surfaced instead of a stall). Shared by the speech retry.
 */
export function backoffDelayMs(options: {
  policy: RetryPolicy;
  error: ProviderError;
  attempt: number;
  random: RandomSource;
}): number | undefined {
  const { policy, error, attempt } = options;
  if (error.retryAfterMs !== undefined && error.retryAfterMs > policy.maxRetryAfterMs)
    return undefined;
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  const jittered = Math.floor(options.random() * ceiling);
  return Math.max(error.retryAfterMs ?? 0, jittered);
}

/** Time for a response to start: a hung call is retried once and the member told within ~20 s. */
export const DEFAULT_FIRST_BYTE_TIMEOUT_MS = 20_000;

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 3,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 20_000,
  firstByteTimeoutMs: DEFAULT_FIRST_BYTE_TIMEOUT_MS,
};

export interface RetryingChatModelOptions {
  model: ChatModel;
  clock: Clock;
  random: RandomSource;
  policy?: Partial<RetryPolicy>;
  logger?: Logger;
}

/**
 * The one place provider calls are retried. Retries only retryable kinds (rate limit, overload,
 * network, timeout), waits with exponential backoff and full jitter — at least as long as the
 * provider's retry-after — and gives up after `maxAttempts`.
 *
 * A call whose response does not start within half of `firstByteTimeoutMs` is retried once,
 * at once; if the retry does not answer either, the call fails with a `timeout`.
 *
 * It retries only while nothing has been yielded: once a text delta or a tool call has reached
 * the caller a retry would repeat what users already saw, and a reasoning delta cannot be taken
 * back either (a second attempt's thinking would be glued to the first's, breaking the signed
 * blocks Anthropic and Gemini verify). Failures after that pass through as `error` parts.
 */
export class RetryingChatModel implements ChatModel {
  readonly provider: ProviderId;
  readonly #model: ChatModel;
  readonly #clock: Clock;
  readonly #random: RandomSource;
  readonly #policy: RetryPolicy;
  readonly #logger: Logger;

  constructor(options: RetryingChatModelOptions) {
    this.#model = options.model;
    this.provider = options.model.provider;
    this.#clock = options.clock;
    this.#random = options.random;
    this.#policy = { ...DEFAULT_RETRY_POLICY, ...options.policy };
    this.#logger = options.logger ?? silentLogger;
  }

  async *stream(
    request: ChatRequest,
    signal: AbortSignal,
  ): AsyncGenerator<StreamPart, void, undefined> {
    const firstByteTimeoutMs = Math.ceil(this.#policy.firstByteTimeoutMs / 2);
    let unanswered = 0;
    for (let attempt = 1; ; attempt += 1) {
      let retry: { failure: ProviderError; delayMs: number } | undefined;
      let yielded = false;
      try {
        for await (const part of this.#model.stream(request, signal, { firstByteTimeoutMs })) {
          if (part.type === 'error' && !yielded) {
            const delayMs = this.#delayFor(part.error, attempt, unanswered);
            if (delayMs !== undefined) {
              retry = { failure: part.error, delayMs };
              break;
            }
          }
          yielded = true;
          yield part;
        }
      } catch (error) {
        const delayMs =
          error instanceof ProviderError ? this.#delayFor(error, attempt, unanswered) : undefined;
        if (delayMs === undefined) throw error;
        retry = { failure: error as ProviderError, delayMs };
      }
      if (retry === undefined) return;
      const { failure, delayMs } = retry;
      if (failure instanceof FirstByteTimeoutError) unanswered += 1;
      this.#logger.warn(
        { provider: this.provider, kind: failure.kind, status: failure.status, attempt, delayMs },
        'provider call failed; retrying',
      );
      try {
        if (delayMs > 0) await this.#clock.sleep(delayMs, signal);
        else signal.throwIfAborted();
      } catch (error) {
        if (isAbortError(error) || signal.aborted) return;
        throw error;
      }
    }
  }

  /**
   * A check is asked "does it work right now?", so a rate limit, an overload or a timeout is the
   * answer, not something to wait out inside a slash command's few seconds. The one exception is
   * `network`, retried once at once: a pooled keep-alive connection the server has since closed
   * fails a GET instantly, and the fresh connection of a second try is the real answer.
   */
  async checkModel(modelId: string, signal: AbortSignal): Promise<void> {
    try {
      await this.#model.checkModel(modelId, signal);
    } catch (error) {
      if (!(error instanceof ProviderError) || error.kind !== 'network' || signal.aborted)
        throw error;
      this.#logger.warn(
        { provider: this.provider, kind: error.kind, attempt: 1 },
        'provider check failed; retrying once',
      );
      await this.#model.checkModel(modelId, signal);
    }
  }

  /** Milliseconds to wait before the next attempt, or undefined when this failure is final. */
  #delayFor(error: ProviderError, attempt: number, unanswered: number): number | undefined {
    const policy = this.#policy;
    if (!error.retryable || attempt >= policy.maxAttempts) return undefined;
    // A hung call: once, at once (the member has already waited), and never a third time.
    if (error instanceof FirstByteTimeoutError) return unanswered === 0 ? 0 : undefined;
    return backoffDelayMs({ policy, error, attempt, random: this.#random });
  }
}
