import { type Clock, WAIT_CANCELLED } from '../../core/clock.ts';
import type { DeliveryError } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';

/** What a turn's delivery came to. Failures are data here: the orchestrator records them. */
export interface DeliveryResult {
  /** Every message the reply spans on the platform (also when part of it is missing). */
  messageIds: string[];
  /**
   * Set when writes failed for good (after the sink's retries): the reply on the platform is
   * incomplete or absent, and the turn ends `failed` with this reason.
   */
  failure: DeliveryError | undefined;
}

/**
 * The port through which a turn reaches the chat platform. The pipeline decides WHAT to send
 * and when a message is complete; the implementation (the Discord edge) decides how fast:
 * pacing against rate limits, merging queued chunks, keeping the typing indicator alive and
 * sending explicit `allowed_mentions` with every create and edit are its job.
 *
 * Every chunk and every content handed over is at most the configured message limit, has
 * balanced code fences, and is never empty or whitespace-only.
 */
export interface DeliverySink {
  /**
   * Message-per-block mode: a finished chunk becomes a new message. Non-blocking: the sink
   * queues; when the channel's rate-limit bucket is empty it may merge queued chunks that fit
   * into one message. The turn's first message replies to the trigger.
   */
  pushMessage(chunk: string): void;
  /**
   * Edit-in-place mode: the whole current content of the growing message (latest wins; the
   * sink may skip intermediate states).
   */
  updateCurrent(content: string): void;
  /** Edit-in-place mode: the current message is final; the next update starts a new one. */
  sealCurrent(): void;
  /**
   * The model's text as it streams, before it is cut into blocks and messages (and before the
   * humanizer): for a sink that speaks the reply as it is written, a sentence at a time, rather
   * than a paragraph at a time. Optional; never called after a stop.
   */
  hearText?(text: string): void;
  /** Typing indicator wanted on/off (the sink keeps it alive while on). */
  setTyping(active: boolean): void;
  /** Live tool status line ("searching…"), or undefined to clear it. */
  setStatus(status: string | undefined): void;
  /** Drops everything queued but not yet sent (a stop). */
  discardPending(): void;
  /**
   * The reply's last content is being handed over (it follows at once): nothing meant only
   * for a reply still running, such as its Stop button, is worth adding to a new message, and
   * the next edit may already take it away.
   */
  endOfReply(): void;
  /**
   * Waits until every queued write is done (or failed for good) and answers what was
   * delivered. Rejects only when `signal` aborted the wait.
   */
  flush(signal?: AbortSignal): Promise<DeliveryResult>;
}

/** The sink's flush, bounded so a broken sink cannot keep a turn (and its record) open. */
export async function flushWithin(
  sink: DeliverySink,
  options: { clock: Clock; timeoutMs: number; logger: Logger },
): Promise<DeliveryResult> {
  const timeout = new AbortController();
  const timer = new AbortController();
  void options.clock.sleep(options.timeoutMs, timer.signal).then(
    () => {
      options.logger.warn('delivery flush timed out');
      timeout.abort();
    },
    () => undefined,
  );
  try {
    return await sink.flush(timeout.signal);
  } finally {
    timer.abort(WAIT_CANCELLED);
  }
}
