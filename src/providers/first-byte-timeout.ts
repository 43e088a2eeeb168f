import { type Clock, WAIT_CANCELLED } from '../core/clock.ts';
import { ProviderError } from '../core/errors.ts';
import type { ProviderId } from '../core/provider.ts';

/**
 * The provider did not start its response (status and headers) in time: a hung call, retried
 * once quietly by RetryingChatModel. A response that started and then went silent is the
 * orchestrator's inactivity watchdog's business instead.
 */
export class FirstByteTimeoutError extends ProviderError {
  constructor(options: { provider: ProviderId; timeoutMs: number }) {
    super({
      kind: 'timeout',
      message: `${options.provider}: no response within ${options.timeoutMs} ms`,
      retryable: true,
      provider: options.provider,
    });
  }
}

export interface FirstByteDeadline {
  timeoutMs: number;
  clock: Clock;
  provider: ProviderId;
}

/**
 * Resolves with `opening` (a vendor SDK's request, which resolves once the response started),
 * or — when `deadline.timeoutMs` passes first on the injected clock — calls `abort` (which
 * must cancel the HTTP request) and rejects with a FirstByteTimeoutError.
 */
export async function openWithin<Opened>(
  opening: Promise<Opened>,
  options: { deadline: FirstByteDeadline | undefined; abort(reason: unknown): void },
): Promise<Opened> {
  const { deadline } = options;
  if (deadline === undefined) return opening;
  const timer = new AbortController();
  const expired = deadline.clock.sleep(deadline.timeoutMs, timer.signal).then(
    () => {
      const error = new FirstByteTimeoutError(deadline);
      options.abort(error);
      throw error;
    },
    () => new Promise<never>(() => undefined), // cancelled: the response started first
  );
  // The request's own rejection after a timeout (an AbortError) is not news.
  opening.catch(() => undefined);
  try {
    return await Promise.race([opening, expired]);
  } finally {
    timer.abort(WAIT_CANCELLED);
  }
}
