import { type Clock, WAIT_CANCELLED } from '../../core/clock.ts';
import type { StreamPart } from '../../core/stream-part.ts';

export type NextPart =
  | { kind: 'part'; part: StreamPart }
  | { kind: 'end' }
  | { kind: 'timeout' }
  | { kind: 'aborted' }
  | { kind: 'thrown'; error: unknown };

/**
 * Reads a model stream part by part, each read raced against an inactivity watchdog and the
 * turn's signal. The watchdog is armed BEFORE a read is awaited — a race set up only after the
 * read was awaited could never fire — and measures only time
 * spent waiting for the model. One timer serves the whole stream (re-armed from a deadline),
 * so thousands of parts do not create thousands of timers.
 */
export class ModelStreamReader {
  private readonly iterator: AsyncIterator<StreamPart>;
  private readonly clock: Clock;
  private readonly timeoutMs: number;
  private readonly signal: AbortSignal;
  private readonly watchdog = new AbortController();
  private deadline: number;
  private waiting: ((result: NextPart) => void) | undefined;
  private terminal: NextPart | undefined;

  constructor(
    iterator: AsyncIterator<StreamPart>,
    options: { clock: Clock; timeoutMs: number; signal: AbortSignal },
  ) {
    this.iterator = iterator;
    this.clock = options.clock;
    this.timeoutMs = options.timeoutMs;
    this.signal = options.signal;
    this.deadline = this.clock.now() + this.timeoutMs;
    this.signal.addEventListener('abort', this.onAbort, { once: true });
    void this.watch();
  }

  next(): Promise<NextPart> {
    if (this.signal.aborted) this.settle({ kind: 'aborted' });
    if (this.terminal !== undefined) return Promise.resolve(this.terminal);
    this.deadline = this.clock.now() + this.timeoutMs;
    return new Promise<NextPart>((resolve) => {
      this.waiting = resolve;
      let pending: Promise<IteratorResult<StreamPart>>;
      try {
        pending = this.iterator.next();
      } catch (error) {
        this.answer({ kind: 'thrown', error });
        return;
      }
      pending.then(
        (result) =>
          this.answer(
            result.done === true ? { kind: 'end' } : { kind: 'part', part: result.value },
          ),
        (error: unknown) => this.answer({ kind: 'thrown', error }),
      );
    });
  }

  /** Stops the watchdog and asks the stream to end (without waiting for it). */
  close(): void {
    this.watchdog.abort(WAIT_CANCELLED);
    this.signal.removeEventListener('abort', this.onAbort);
    this.terminal ??= { kind: 'end' };
    void Promise.resolve()
      .then(() => this.iterator.return?.())
      .catch(() => undefined);
  }

  private readonly onAbort = (): void => {
    this.settle({ kind: 'aborted' });
  };

  private answer(result: NextPart): void {
    if (this.terminal !== undefined) return;
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.(result);
  }

  /** Ends the stream for good with `result`, answering a read in progress. */
  private settle(result: NextPart): void {
    if (this.terminal !== undefined) return;
    this.terminal = result;
    this.watchdog.abort(WAIT_CANCELLED);
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.(result);
  }

  private async watch(): Promise<void> {
    for (;;) {
      const remaining = this.deadline - this.clock.now();
      if (remaining <= 0 && this.waiting !== undefined) {
        this.settle({ kind: 'timeout' });
        return;
      }
      try {
        await this.clock.sleep(remaining > 0 ? remaining : this.timeoutMs, this.watchdog.signal);
      } catch {
        return; // closed
      }
    }
  }
}
