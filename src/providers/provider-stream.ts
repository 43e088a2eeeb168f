import { ProviderError } from '../core/errors.ts';
import type { StreamPart } from '../core/stream-part.ts';
import { openWithin, type FirstByteDeadline } from './first-byte-timeout.ts';

/**
 * Turns one vendor's events into stream parts. Adapters implement it per request; it holds the
 * state a vendor spreads across events (tool-call fragments, open reasoning blocks, usage).
 */
export interface StreamMapper<Event> {
  /** The parts one vendor event produces, in order (often none or one). */
  map(event: Event): readonly StreamPart[];
  /**
   * Called once after the vendor stream ended normally: flushes what is pending and ends with
   * exactly one `step-end` — or an `error` when the vendor stream stopped before it completed.
   */
  finish(): readonly StreamPart[];
}

export interface ProviderStreamOptions<Event> {
  /**
   * Sends the request with `signal` (the caller's, plus our own end of the stream); resolves to
   * the vendor's event stream.
   */
  open(signal: AbortSignal): Promise<AsyncIterable<Event>>;
  mapper: StreamMapper<Event>;
  /** The adapter's one error classifier. */
  classify(error: unknown): ProviderError;
  signal: AbortSignal;
  /** When set, the response must start within it (see `openWithin`). */
  firstByte?: FirstByteDeadline | undefined;
}

/**
 * The provider contract's failure and cancellation rules, shared by every adapter:
 * - a failure before the first part is thrown as a ProviderError (so a caller can retry), a
 *   response that does not start within `firstByte` too (a FirstByteTimeoutError);
 * - after it, the failure is yielded as one `error` part and the iterable ends;
 * - aborting `signal` ends the iterable quietly;
 * - however the iterable ends (completion, failure, abort, a consumer's `break`), the request's
 *   own signal is aborted, so no SDK can leave the HTTP stream open and billing.
 */
export async function* runProviderStream<Event>(
  options: ProviderStreamOptions<Event>,
): AsyncGenerator<StreamPart, void, undefined> {
  const { mapper, signal } = options;
  if (signal.aborted) return;
  // Some SDKs only release the body's reader when their iterator is returned early (Google's),
  // which leaves the connection streaming; aborting the request is the one reliable close.
  const ended = new AbortController();
  let yielded = false;
  try {
    const opened = await openWithin(options.open(AbortSignal.any([signal, ended.signal])), {
      deadline: options.firstByte,
      abort: (reason) => ended.abort(reason),
    });
    for await (const event of opened) {
      if (signal.aborted) return;
      for (const part of mapper.map(event)) {
        if (part.type === 'error') {
          if (!yielded) throw part.error;
          yield part;
          return;
        }
        yielded = true;
        yield part;
      }
    }
    if (signal.aborted) return;
    for (const part of mapper.finish()) {
      if (part.type === 'error' && !yielded) throw part.error;
      yielded = true;
      yield part;
    }
  } catch (error) {
    // Whatever the SDK threw while being torn down by an abort is not a failure to report.
    if (signal.aborted) return;
    const failure = error instanceof ProviderError ? error : options.classify(error);
    if (!yielded) throw failure;
    yield { type: 'error', error: failure };
  } finally {
    ended.abort();
  }
}
