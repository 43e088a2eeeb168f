import type { Clock, RandomSource } from '../../core/clock.ts';
import type { DeliveryMode } from '../../core/settings.ts';
import type { HumanizerPlan } from '../../humanizer/humanizer-plan.ts';
import { typingDelayMs, type TypingPacing } from '../../humanizer/typing-pacing.ts';
import type { Block } from '../blocks/block-buffer.ts';
import { chunkMessage } from './chunker.ts';
import type { DeliverySink } from './delivery-sink.ts';
import { renderFenced, type FencedText } from '../blocks/fence.ts';
import { GrowingMessage } from './growing-message.ts';

export interface ReplyDeliveryOptions {
  sink: DeliverySink;
  mode: DeliveryMode;
  plan: HumanizerPlan;
  messageLimit: number;
  pacing: TypingPacing;
  clock: Clock;
  random: RandomSource;
  /** Minimum time between two live previews in edit-in-place mode (CPU economy only). */
  previewIntervalMs: number;
  /** Called once, when the first content is handed to the sink. */
  onFirstDelivery?: () => void;
}

/**
 * One turn's delivery: finished blocks in, sink calls out. Blocks pass the humanizer (its
 * rewrite, then the chunker), then either become messages (`pushMessage`, or in edit mode one
 * sealed message each) — with typing pauses between them at degrees 2 and 3 — or, in edit mode
 * at degrees 0 and 1, grow one message by edits. After `stop()` nothing more reaches the sink.
 */
export class ReplyDelivery {
  private readonly options: ReplyDeliveryOptions;
  private readonly growing: GrowingMessage | undefined;
  private readonly pacingController = new AbortController();
  private queue: Promise<void> = Promise.resolve();
  private delivered = 0;
  /** Chunks accepted but not yet handed to the sink (paced ones wait their typing time). */
  private pending = 0;
  /** The model has nothing more to say: the last pending chunk ends the reply. */
  private inputEnded = false;
  private stopped = false;
  private lastPreviewAt = Number.NEGATIVE_INFINITY;

  constructor(options: ReplyDeliveryOptions) {
    this.options = options;
    if (options.mode === 'edit' && !options.plan.typingPacing) {
      this.growing = new GrowingMessage({
        limit: options.messageLimit,
        target: {
          show: (content) => this.handOver(() => options.sink.updateCurrent(content)),
          seal: () => options.sink.sealCurrent(),
        },
      });
    }
  }

  /** How many messages (or message states, in edit mode) were handed to the sink. */
  get deliveredCount(): number {
    return this.delivered;
  }

  accept(block: Block): void {
    if (this.stopped) return;
    if (this.growing !== undefined) {
      this.growing.append(block);
      return;
    }
    this.sendAll(this.chunksOf(block));
  }

  /**
   * The reply's last blocks (the model has nothing more to say): the sink hears `endOfReply`
   * just before the last content reaches it, so a reply that ends in the message being
   * written never gets a Stop button that one more edit would have to take away.
   */
  acceptFinal(blocks: readonly Block[]): void {
    if (this.stopped) return;
    this.inputEnded = true;
    if (this.growing !== undefined) {
      this.options.sink.endOfReply();
      for (const block of blocks) this.growing.append(block);
      return;
    }
    const chunks = blocks.flatMap((block) => this.chunksOf(block));
    if (chunks.length === 0 && this.pending === 0) this.options.sink.endOfReply();
    this.sendAll(chunks);
  }

  /** Edit mode at degrees 0–1: show the text still being scanned, at most every interval. */
  preview(pending: () => FencedText): void {
    if (this.stopped || this.growing === undefined) return;
    const now = this.options.clock.now();
    if (now - this.lastPreviewAt < this.options.previewIntervalMs) return;
    this.lastPreviewAt = now;
    this.growing.preview(pending());
  }

  /** The model's text as it streams, for a sink that speaks it (DeliverySink.hearText). */
  streamed(text: string): void {
    if (!this.stopped) this.options.sink.hearText?.(text);
  }

  /** A new model step begins (after tool calls). */
  nextStep(): void {
    this.growing?.separateNext();
  }

  /** Sends nothing more, and drops what the sink has queued. Idempotent. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.pacingController.abort();
    this.options.sink.discardPending();
  }

  /** Waits for paced messages, then (edit mode) finalises the last message. */
  async complete(): Promise<void> {
    await this.queue;
    if (!this.stopped) this.growing?.seal();
  }

  private chunksOf(block: Block): string[] {
    const rendered = renderFenced(block);
    if (rendered === '') return [];
    return chunkMessage(this.options.plan.rewrite(rendered), this.options.messageLimit);
  }

  private sendAll(chunks: readonly string[]): void {
    // Counted first: a chunk knows it is the last one when the count reaches zero.
    this.pending += chunks.length;
    for (const chunk of chunks) this.send(chunk);
  }

  private send(chunk: string): void {
    const { plan, clock, random, pacing } = this.options;
    if (!plan.typingPacing) {
      this.deliver(chunk);
      return;
    }
    // Paced: each message after the first waits as long as typing it would take. Messages
    // queue behind each other so their order is kept while the model stream is read on.
    this.queue = this.queue.then(async () => {
      if (this.stopped) return;
      if (this.delivered > 0) {
        try {
          await clock.sleep(typingDelayMs(chunk, random, pacing), this.pacingController.signal);
        } catch {
          return; // stopped while "typing"
        }
      }
      this.deliver(chunk);
    });
  }

  private deliver(chunk: string): void {
    this.pending -= 1;
    if (this.stopped) return;
    const { mode, sink } = this.options;
    if (this.inputEnded && this.pending === 0) sink.endOfReply();
    this.handOver(() => {
      if (mode === 'messages') {
        sink.pushMessage(chunk);
      } else {
        sink.updateCurrent(chunk);
        sink.sealCurrent();
      }
    });
  }

  private handOver(call: () => void): void {
    if (this.stopped) return;
    call();
    this.delivered += 1;
    if (this.delivered === 1) this.options.onFirstDelivery?.();
  }
}
