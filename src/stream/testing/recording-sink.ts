import type { DeliveryError } from '../../core/errors.ts';
import type { DeliveryResult, DeliverySink } from '../reply/delivery-sink.ts';

export type SinkCall =
  | { type: 'push'; chunk: string }
  | { type: 'update'; content: string }
  | { type: 'seal' }
  | { type: 'typing'; active: boolean }
  | { type: 'status'; status: string | undefined }
  | { type: 'discard' }
  | { type: 'end' }
  | { type: 'flush' };

/**
 * A DeliverySink that records every call and "sends" immediately: pushed chunks and sealed
 * edit-mode messages become messages with ids `m1`, `m2`, … For asserting what a turn decided
 * to send, in what order, and that nothing was sent after a stop.
 */
export class RecordingSink implements DeliverySink {
  readonly calls: SinkCall[] = [];
  /** The messages as Discord would show them at the end. */
  readonly messages: string[] = [];
  private current: string | undefined;
  private flushFailure: Error | undefined;
  private deliveryFailure: DeliveryError | undefined;
  private flushGate: Promise<void> | undefined;

  pushMessage(chunk: string): void {
    this.calls.push({ type: 'push', chunk });
    this.messages.push(chunk);
  }

  updateCurrent(content: string): void {
    this.calls.push({ type: 'update', content });
    if (this.current === undefined) this.messages.push(content);
    else this.messages[this.messages.length - 1] = content;
    this.current = content;
  }

  sealCurrent(): void {
    this.calls.push({ type: 'seal' });
    this.current = undefined;
  }

  setTyping(active: boolean): void {
    this.calls.push({ type: 'typing', active });
  }

  setStatus(status: string | undefined): void {
    this.calls.push({ type: 'status', status });
  }

  discardPending(): void {
    this.calls.push({ type: 'discard' });
  }

  endOfReply(): void {
    this.calls.push({ type: 'end' });
  }

  async flush(signal?: AbortSignal): Promise<DeliveryResult> {
    this.calls.push({ type: 'flush' });
    if (this.flushGate !== undefined) {
      const gate = this.flushGate;
      await new Promise<void>((resolve, reject) => {
        signal?.addEventListener('abort', () => reject(new Error('flush aborted')), { once: true });
        void gate.then(resolve);
      });
    }
    if (this.flushFailure !== undefined) throw this.flushFailure;
    return {
      messageIds: this.messages.map((_, index) => `m${index + 1}`),
      failure: this.deliveryFailure,
    };
  }

  /** Makes `flush` reject with `error` (a broken sink). */
  failFlushWith(error: Error): void {
    this.flushFailure = error;
  }

  /** Makes `flush` report that writes failed for good, as the Discord sink does. */
  failDeliveryWith(error: DeliveryError): void {
    this.deliveryFailure = error;
  }

  /** Makes `flush` wait until `gate` resolves (or its signal aborts). */
  holdFlushUntil(gate: Promise<void>): void {
    this.flushGate = gate;
  }

  /** The calls that put text on the platform (push and update). */
  contentCalls(): SinkCall[] {
    return this.calls.filter((call) => call.type === 'push' || call.type === 'update');
  }
}
