/** Time, injected everywhere it matters so tests never sleep for real. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms`, or rejects with an AbortError as soon as `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** A random number in [0, 1). Injected so jitter is reproducible in tests. */
export type RandomSource = () => number;

/**
 * The reason for aborting a signal that only cancels a wait (a timer, a wake-up): one shared
 * AbortError, since `abort()` without a reason builds a new DOMException, stack and all, and
 * some of these run several times per turn.
 */
export const WAIT_CANCELLED = new DOMException('The wait was cancelled', 'AbortError');

export function abortError(signal?: AbortSignal): Error {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  return new DOMException('The operation was aborted', 'AbortError');
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(abortError(signal));
        return;
      }
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(abortError(signal));
      };
      const timer = setTimeout(
        () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        Math.max(0, ms),
      );
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};
