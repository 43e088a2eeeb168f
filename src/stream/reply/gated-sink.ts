import type { DeliveryResult, DeliverySink } from './delivery-sink.ts';

/**
 * A sink that holds a reply's writes until `gate` settles: opened (true), they reach `sink` in
 * the order they were made, and every later one goes straight through; closed (false), they are
 * dropped, and so is every later one — nothing reaches the platform. Typing and the status line
 * are not writes of the reply and always pass.
 *
 * The orchestrator records a turn's start beside the model call instead of before it: the reply
 * may stream meanwhile, but none of it is posted before its start is recorded (a reply standing
 * in the channel must have a turn the next process finds, or a restart would answer again).
 */
export class GatedSink implements DeliverySink {
  readonly #sink: DeliverySink;
  /** Undefined once the gate settled; until then the writes held, in order. */
  #held: Array<(sink: DeliverySink) => void> | undefined = [];
  #open = false;
  readonly #settled: Promise<boolean>;

  constructor(sink: DeliverySink, gate: Promise<boolean>) {
    this.#sink = sink;
    this.#settled = gate.then(
      (open) => this.#settle(open),
      () => this.#settle(false),
    );
  }

  pushMessage(chunk: string): void {
    this.#write((sink) => sink.pushMessage(chunk));
  }

  updateCurrent(content: string): void {
    this.#write((sink) => sink.updateCurrent(content));
  }

  sealCurrent(): void {
    this.#write((sink) => sink.sealCurrent());
  }

  hearText(text: string): void {
    this.#write((sink) => sink.hearText?.(text));
  }

  endOfReply(): void {
    this.#write((sink) => sink.endOfReply());
  }

  setTyping(active: boolean): void {
    this.#sink.setTyping(active);
  }

  setStatus(status: string | undefined): void {
    this.#sink.setStatus(status);
  }

  /** A stop: what is held is dropped here, what was handed on is dropped by the sink. */
  discardPending(): void {
    if (this.#held !== undefined) this.#held.length = 0;
    if (this.#open) this.#sink.discardPending();
  }

  /** Once the gate settled: the sink's flush, or nothing delivered when it closed. */
  async flush(signal?: AbortSignal): Promise<DeliveryResult> {
    const open = await this.#settled;
    if (!open) return { messageIds: [], failure: undefined };
    return this.#sink.flush(signal);
  }

  #write(write: (sink: DeliverySink) => void): void {
    if (this.#held !== undefined) this.#held.push(write);
    else if (this.#open) write(this.#sink);
  }

  #settle(open: boolean): boolean {
    const held = this.#held ?? [];
    this.#held = undefined;
    this.#open = open;
    if (open) for (const write of held) write(this.#sink);
    return open;
  }
}
