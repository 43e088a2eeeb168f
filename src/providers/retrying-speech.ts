import type { Clock, RandomSource } from '../core/clock.ts';
import { ProviderError } from '../core/errors.ts';
import { silentLogger, type Logger } from '../core/logger.ts';
import type { ProviderId } from '../core/provider.ts';
import type {
  SpeechRequest,
  SpeechToText,
  TextToSpeech,
  Transcript,
  TranscriptionRequest,
} from '../core/speech.ts';
import { backoffDelayMs, DEFAULT_RETRY_POLICY, type RetryPolicy } from './retrying-chat-model.ts';

export interface RetryingSpeechOptions {
  speech: SpeechToText & TextToSpeech;
  clock: Clock;
  random: RandomSource;
  policy?: Partial<RetryPolicy>;
  logger?: Logger;
}

/**
 * The speech calls' retry, by the chat calls' policy: retryable kinds only, backoff with full
 * jitter honouring retry-after, `maxAttempts` in all. A synthesis is retried only before its
 * first chunk: audio already encoded would be spoken twice.
 */
export class RetryingSpeech implements SpeechToText, TextToSpeech {
  readonly provider: ProviderId;
  readonly #speech: SpeechToText & TextToSpeech;
  readonly #clock: Clock;
  readonly #random: RandomSource;
  readonly #policy: RetryPolicy;
  readonly #logger: Logger;

  constructor(options: RetryingSpeechOptions) {
    this.#speech = options.speech;
    this.provider = options.speech.provider;
    this.#clock = options.clock;
    this.#random = options.random;
    this.#policy = { ...DEFAULT_RETRY_POLICY, ...options.policy };
    this.#logger = options.logger ?? silentLogger;
  }

  async transcribe(request: TranscriptionRequest, signal: AbortSignal): Promise<Transcript> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.#speech.transcribe(request, signal);
      } catch (error) {
        await this.#waitOrThrow({ error, attempt, signal, call: 'transcribe' });
      }
    }
  }

  /** Not retried, like a chat check: "does it work right now?" is the question. */
  checkModel(modelId: string, signal: AbortSignal): Promise<void> {
    return this.#speech.checkModel(modelId, signal);
  }

  async *synthesize(
    request: SpeechRequest,
    signal: AbortSignal,
  ): AsyncGenerator<Uint8Array, void, undefined> {
    for (let attempt = 1; ; attempt += 1) {
      let yielded = false;
      try {
        for await (const chunk of this.#speech.synthesize(request, signal)) {
          yielded = true;
          yield chunk;
        }
        return;
      } catch (error) {
        if (yielded) throw error;
        await this.#waitOrThrow({ error, attempt, signal, call: 'synthesize' });
      }
    }
  }

  /** Waits out a retryable failure, or throws it when it is final. */
  async #waitOrThrow(options: {
    error: unknown;
    attempt: number;
    signal: AbortSignal;
    call: string;
  }): Promise<void> {
    const { error, attempt, signal } = options;
    if (!(error instanceof ProviderError) || signal.aborted) throw error;
    const policy = this.#policy;
    const delayMs =
      error.retryable && attempt < policy.maxAttempts
        ? backoffDelayMs({ policy, error, attempt, random: this.#random })
        : undefined;
    if (delayMs === undefined) throw error;
    this.#logger.warn(
      { provider: this.provider, call: options.call, kind: error.kind, attempt, delayMs },
      'speech call failed; retrying',
    );
    await this.#clock.sleep(delayMs, signal);
  }
}
