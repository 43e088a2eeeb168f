import { DeliveryError, type DeliveryRequest } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';
import type { TargetWriteError } from './message-target.ts';

/**
 * What a turn's writes lost: the sink records every write that failed for good here, and the
 * ledger answers whether a gap waits to be announced and, at the end, why the delivery failed.
 * 403 or a vanished channel is fatal: nothing more can be written there, not even a notice.
 */
export class DeliveryLedger {
  private readonly options: { logger: Logger; channelId: string };
  private lastFailure: TargetWriteError | undefined;
  private lostContent = false;
  /** Content was lost since the last gap notice. */
  gapPending = false;
  fatal: TargetWriteError | undefined;

  constructor(options: { logger: Logger; channelId: string }) {
    this.options = options;
  }

  /**
   * A write of reply content failed for good (a 'gone' here is the channel: a vanished message
   * is re-posted by the sink). `gap`: the content is lost (a chunk); an edit's loss is only a
   * gap once its message is sealed without a later edit repairing it (the sink checks).
   */
  lose(failure: TargetWriteError, options: { gap: boolean }): void {
    this.lastFailure = failure;
    if (options.gap) {
      this.lostContent = true;
      this.gapPending = true;
    }
    this.note(failure, { fatal: failure.failure === 'forbidden' || failure.failure === 'gone' });
  }

  /** A status line could not be shown: no gap in the reply, unless Discord refused the channel. */
  loseStatus(failure: TargetWriteError): void {
    this.note(failure, { fatal: failure.failure === 'forbidden' });
  }

  markGap(): void {
    this.gapPending = true;
  }

  gapAnnounced(): void {
    this.gapPending = false;
  }

  /** Why the delivery failed, if it did; `unfinished`: a message's final content never landed. */
  result(options: { unfinished: boolean }): DeliveryError | undefined {
    if (this.fatal !== undefined) {
      const code = this.fatal.failure === 'gone' ? 'gone' : 'forbidden';
      return new DeliveryError(code, 'the bot may not write in this channel', {
        ...this.requestOf(this.fatal),
        cause: this.fatal,
      });
    }
    if (!this.lostContent && !options.unfinished) return undefined;
    return new DeliveryError('write_failed', 'part of the reply could not be written', {
      ...this.requestOf(this.lastFailure),
      cause: this.lastFailure,
      retryable: true,
    });
  }

  /** The failed request, in this channel: the turn's DeliveryError carries it. */
  private requestOf(failure: TargetWriteError | undefined): DeliveryRequest {
    return { ...failure?.request, channelId: failure?.channelId ?? this.options.channelId };
  }

  private note(failure: TargetWriteError, options: { fatal: boolean }): void {
    const { logger, channelId } = this.options;
    if (options.fatal) {
      this.fatal ??= failure;
      logger.warn({ channelId, failure: failure.failure }, 'the bot may not write here any more');
      return;
    }
    logger.warn({ channelId, failure: failure.failure, err: failure }, 'a Discord write failed');
  }
}
