import type { Clock, RandomSource } from '../core/clock.ts';
import type { DeliveryMode } from '../core/settings.ts';
import type { HumanizerPlan } from '../humanizer/humanizer-plan.ts';
import { typingDelayMs, type TypingPacing } from '../humanizer/typing-pacing.ts';
import type { Block } from './block-buffer.ts';
import { chunkMessage } from './chunker.ts';
import type { DeliverySink } from './delivery-sink.ts';
import { renderFenced, type FencedText } from './fence.ts';
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
    const rendered = renderFenced(block);
    if (rendered === '') return;
    for (const chunk of chunkMessage(
      this.options.plan.rewrite(rendered),
      this.options.messageLimit,
    )) {
      this.send(chunk);
    }
  }

  /** Edit mode at degrees 0–1: show the text still being scanned, at most every interval. */
  preview(pending: () => FencedText): void {
    if (this.stopped || this.growing === undefined) return;
    const now = this.options.clock.now();
    if (now - this.lastPreviewAt < this.options.previewIntervalMs) return;
    this.lastPreviewAt = now;
    this.growing.preview(pending());
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
    if (this.stopped) return;
    const { mode, sink } = this.options;
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
