import type { ProviderError } from '../core/errors.ts';

export interface ModelCheckOptions {
  /** Sends the vendor's model lookup with `signal`. */
  lookup(signal: AbortSignal): Promise<unknown>;
  /** The adapter's one error classifier. */
  classify(error: unknown): ProviderError;
  signal: AbortSignal;
}

/**
 * The `checkModel` contract, shared by every adapter: any answer means the key works and the
 * model exists; a failure is thrown classified; an aborted signal wins over whatever the SDK
 * threw while being torn down, and is rethrown as the signal's own reason (a caller's timeout
 * can abort with a ProviderError and get it back).
 */
export async function runModelCheck(options: ModelCheckOptions): Promise<void> {
  const { signal } = options;
  signal.throwIfAborted();
  try {
    await options.lookup(signal);
  } catch (error) {
    signal.throwIfAborted();
    throw options.classify(error);
  }
}
