import type { ChatRequest } from '../../core/chat.ts';
import type { ChatModel } from '../../core/provider.ts';
import type { StreamPart } from '../../core/stream-part.ts';

/**
 * A turn's first model call, opened while the turn's start is being recorded rather than after:
 * the request is on its way (its first part asked for) during that write's round trip. It is
 * read only once the start is recorded — nothing of it reaches the member before — and
 * cancelled if the start cannot be recorded.
 *
 * It stands in for the model in the turn's first call (`stream` once, with that call's
 * request, which is the one it was opened with); the call's own signal (a stop, its watchdog)
 * reaches the request as if it had opened it.
 */
export class EarlyModelCall implements ChatModel {
  readonly provider: ChatModel['provider'];
  readonly #model: ChatModel;
  readonly #cancel = new AbortController();
  readonly #opened: OpenedStream;
  #taken = false;

  constructor(model: ChatModel, request: ChatRequest, turnSignal: AbortSignal) {
    this.provider = model.provider;
    this.#model = model;
    this.#opened = openStream(model, request, AbortSignal.any([turnSignal, this.#cancel.signal]));
  }

  stream(_request: ChatRequest, signal: AbortSignal): AsyncIterable<StreamPart> {
    if (this.#taken) throw new Error('an early model call is read once');
    this.#taken = true;
    const forward = (): void => this.#cancel.abort(signal.reason);
    if (signal.aborted) forward();
    else signal.addEventListener('abort', forward, { once: true });
    const opened = this.#opened;
    if (!opened.ok) throw opened.error;
    let first: Promise<IteratorResult<StreamPart>> | undefined = opened.first;
    const iterator: AsyncIterator<StreamPart> = {
      next: () => {
        const next = first ?? opened.iterator.next();
        first = undefined;
        return next;
      },
      return: async (value?: unknown) => {
        signal.removeEventListener('abort', forward);
        return (await opened.iterator.return?.(value)) ?? { done: true, value: undefined };
      },
    };
    return { [Symbol.asyncIterator]: () => iterator };
  }

  /** The start was not recorded (or the turn ended first): the request is abandoned. */
  cancel(): void {
    if (this.#taken) return;
    this.#taken = true;
    this.#cancel.abort(new Error('the turn did not start'));
    if (this.#opened.ok) void this.#opened.iterator.return?.().catch(() => undefined);
  }

  checkModel(modelId: string, signal: AbortSignal): Promise<void> {
    return this.#model.checkModel(modelId, signal);
  }
}

type OpenedStream =
  | {
      ok: true;
      iterator: AsyncIterator<StreamPart>;
      /** The first part, asked for at once; its failure is the reader's, when it reads. */
      first: Promise<IteratorResult<StreamPart>>;
    }
  | { ok: false; error: unknown };

function openStream(model: ChatModel, request: ChatRequest, signal: AbortSignal): OpenedStream {
  try {
    const iterator = model.stream(request, signal)[Symbol.asyncIterator]();
    const first = iterator.next();
    // Held until read (or dropped with a cancelled call): never an unhandled rejection.
    first.catch(() => undefined);
    return { ok: true, iterator, first };
  } catch (error) {
    return { ok: false, error };
  }
}
