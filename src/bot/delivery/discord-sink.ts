import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import type { DeliveryResult, DeliverySink } from '../../stream/reply/delivery-sink.ts';
import { DeliveryLedger } from './delivery-ledger.ts';
import {
  ABANDONED,
  asWriteError,
  type ChannelWriter,
  newNonce,
  type WriteOutcome,
} from './delivery-port.ts';
import { type Creation, EditSlots, type Slot } from './edit-slots.ts';
import type { AllowedMentions, ButtonSpec } from './message-target.ts';
import { ReplyButton } from './reply-button.ts';
import { StatusLine } from './status-line.ts';
import type { TypingAllowance } from './typing-allowance.ts';
import { TypingKeeper } from './typing-keeper.ts';

export interface DiscordSinkOptions {
  /** The channel's writer: the sink's only way to Discord, paced and retried there. */
  writer: ChannelWriter;
  /** The process-wide allowance of typing calls (shared by every channel). */
  typing: TypingAllowance;
  clock: Clock;
  logger: Logger;
  allowedMentions: AllowedMentions;
  /** The member message the turn answers; the first message replies to it (without a ping). */
  replyTo: string | undefined;
  /** Discord's content limit (2000). */
  limit: number;
  /**
   * Posted (localized) before the first block that follows content lost to a failed write, so
   * a later block never lands after a gap without saying so.
   */
  gapNotice: string;
  /** The Stop button on the reply's first message while it streams; gone when the turn ends. */
  stopButton?: ButtonSpec;
}

/**
 * Delivers one turn to a Discord channel. The pipeline decides WHAT to send; this decides WHEN:
 * every write first takes a token from the channel's shared WriteBudgets (learned from
 * Discord's rate-limit headers) through the ChannelWriter, so a burst is smoothed instead of
 * answered with 429s. In message-per-block mode, chunks that meet an empty bucket are merged
 * into the next message (up to the limit), so a long reply finishes sooner in fewer messages.
 * Every send and edit carries explicit allowed mentions.
 *
 * A write that fails with a 5xx, a network error or a 429 is retried with backoff (the
 * writer's `attempt`); one that still fails is lost — never marked written — and the next
 * block is preceded by the gap notice. 403 (or the channel gone) ends all writing. `flush` reports any
 * loss as data, so the turn is recorded `failed` with the reason.
 */
export class DiscordSink implements DeliverySink {
  private readonly options: DiscordSinkOptions;
  /** Queued chunks; a status line separates generations, which are never merged together. */
  private readonly chunks: Array<{ text: string; generation: number }> = [];
  private readonly slots = new EditSlots();
  private readonly status = new StatusLine();
  private readonly messageIds: string[] = [];
  private running: Promise<void> | undefined;
  private waitController = new AbortController();
  /** Aborted by a stop: pending retries are dropped. */
  private readonly stopController = new AbortController();
  private readonly typing: TypingKeeper;
  private readonly ledger: DeliveryLedger;
  private readonly button: ReplyButton;
  private closed = false;

  constructor(options: DiscordSinkOptions) {
    this.options = options;
    this.typing = new TypingKeeper({
      target: options.writer,
      clock: options.clock,
      allowance: options.typing,
    });
    this.ledger = new DeliveryLedger({
      logger: options.logger,
      channelId: options.writer.channelId,
    });
    this.button = new ReplyButton(options.stopButton);
  }

  pushMessage(chunk: string): void {
    if (this.closed || chunk.trim() === '') return;
    this.chunks.push({ text: chunk, generation: this.status.generation });
    this.kick();
  }

  updateCurrent(content: string): void {
    if (this.closed || content.trim() === '') return;
    this.slots.update(content);
    this.kick();
  }

  sealCurrent(): void {
    this.slots.seal();
  }

  setTyping(active: boolean): void {
    this.typing.set(active && !this.closed);
  }

  setStatus(status: string | undefined): void {
    if (this.closed && status !== undefined) return;
    this.status.want(status);
    this.kick();
  }

  discardPending(): void {
    this.closed = true;
    this.typing.set(false);
    this.chunks.length = 0;
    this.slots.discard();
    this.status.drop();
    this.waitController.abort();
    this.stopController.abort();
    this.kick();
  }

  endOfReply(): void {
    this.button.end();
  }

  async flush(signal?: AbortSignal): Promise<DeliveryResult> {
    // The reply has ended (complete, stopped or failed): its Stop button goes.
    this.button.end();
    this.kick();
    while (this.running !== undefined) {
      if (signal?.aborted) break;
      await this.running;
    }
    await this.typing.stop();
    const failure = this.ledger.result({ unfinished: this.slots.unfinished() });
    return { messageIds: [...this.messageIds], failure };
  }

  private kick(): void {
    this.running ??= this.drain().finally(() => {
      this.running = undefined;
      if (this.hasWork()) this.kick();
    });
  }

  private hasWork(): boolean {
    return (
      this.ledger.fatal === undefined &&
      (this.chunks.length > 0 ||
        this.slots.next() !== undefined ||
        this.status.toShow !== undefined ||
        this.status.cleared() ||
        this.button.removalDue())
    );
  }

  private async drain(): Promise<void> {
    while (this.hasWork()) {
      if (this.status.cleared()) {
        await this.status.clear(this.options);
        continue;
      }
      if (await this.waitForBudget()) await this.writeNext();
    }
  }

  /** True once a token is taken; false after a wait (re-check the work, then ask again). */
  private async waitForBudget(): Promise<boolean> {
    const taken = await this.options.writer.reserve(this.waitController.signal);
    if (this.waitController.signal.aborted) this.waitController = new AbortController();
    return taken;
  }

  /** Takes a token for one more write; false when the turn was stopped meanwhile. */
  private nextToken(): Promise<boolean> {
    return this.options.writer.takeToken(this.stopController.signal);
  }

  /** Writes one thing (retried with backoff inside); a loss is recorded, never marked written. */
  private async writeNext(): Promise<void> {
    const first = this.chunks[0];
    const status = this.status.toShow;
    if (first !== undefined && (status === undefined || first.generation < status.generation)) {
      this.chunks.shift();
      let content = first.text;
      // Everything that queued up behind an empty bucket goes out as one message, up to the limit.
      for (let next = this.chunks[0]; next !== undefined; next = this.chunks[0]) {
        if (next.generation !== first.generation) break;
        if (content.length + 1 + next.text.length > this.options.limit) break;
        content = `${content}\n${next.text}`;
        this.chunks.shift();
      }
      const creation = { content, nonce: newNonce(), isReply: true };
      const outcome = await this.afterGap(() => this.attempt(() => this.post(creation)));
      if (outcome.kind === 'failed') this.ledger.lose(outcome.failure, { gap: true });
      return;
    }
    const slot = this.slots.next();
    if (slot !== undefined) {
      const desired = slot.desired;
      const write = () => this.attempt(() => this.writeSlot(slot, desired));
      const outcome = slot.id === undefined ? await this.afterGap(write, slot) : await write();
      if (outcome.kind === 'written') slot.written = desired;
      if (outcome.kind === 'failed') {
        slot.failed = desired;
        this.ledger.lose(outcome.failure, { gap: false });
        if (slot.id !== undefined) this.button.editFailed(slot.id);
      }
      return;
    }
    if (status !== undefined) {
      // The status line comes after the text that preceded the tool call. It is cosmetic: its
      // loss is no gap in the reply (unless Discord refused the channel altogether).
      this.status.shown(status.text);
      const nonce = newNonce();
      const outcome = await this.attempt(() =>
        this.status.write(this.options, { content: status.text, nonce }),
      );
      if (outcome.kind === 'failed') this.ledger.loseStatus(outcome.failure);
      return;
    }
    const removal = this.button.takeRemoval(this.options);
    // Cosmetic like the status line: a button left behind only answers "nothing to stop".
    if (removal !== undefined && (await this.attempt(removal)).kind === 'failed') {
      this.options.logger.debug('stop button left in place');
    }
  }

  /**
   * Runs a write of new content, first posting the gap notice when content before it was lost
   * (a lost chunk, or an earlier message whose final edit never got through). If the notice
   * cannot be posted, the content is not either: it would land after the gap unannounced.
   */
  private async afterGap(
    write: () => Promise<WriteOutcome<unknown>>,
    slot?: Slot,
  ): Promise<WriteOutcome<unknown>> {
    const lostSlots = slot === undefined ? [] : this.slots.unannouncedLosses(slot);
    if (lostSlots.length > 0) this.ledger.markGap();
    if (this.ledger.gapPending) {
      const notice = { content: this.options.gapNotice, nonce: newNonce(), isReply: false };
      const posted = await this.attempt(() => this.post(notice));
      if (posted.kind !== 'written') return posted;
      this.ledger.gapAnnounced();
      for (const lost of lostSlots) lost.gapAnnounced = true;
      if (!(await this.nextToken())) return ABANDONED;
    }
    return write();
  }

  private attempt(write: () => Promise<unknown>): Promise<WriteOutcome<unknown>> {
    return this.options.writer.attempt(write, this.stopController.signal);
  }

  private async writeSlot(slot: Slot, content: string): Promise<void> {
    if (slot.id === undefined) {
      slot.id = await this.post({ content, nonce: slot.nonce, isReply: true });
      return;
    }
    try {
      await this.options.writer.edit(slot.id, {
        content,
        allowedMentions: this.options.allowedMentions,
        ...this.button.forEdit(slot.id),
      });
      this.button.edited(slot.id, content);
    } catch (error) {
      const failure = asWriteError(error);
      if (failure.failure !== 'gone' && failure.failure !== 'too_old_to_edit') throw failure;
      this.button.lost(slot.id);
      // The message was deleted or can no longer be edited: carry on in a fresh one.
      this.options.logger.debug(
        { failure: failure.failure },
        'edit refused; continuing in a new message',
      );
      slot.id = undefined;
      slot.nonce = newNonce();
      slot.id = await this.post({ content, nonce: slot.nonce, isReply: true });
    }
  }

  private async post(creation: Creation): Promise<string> {
    const replyTo =
      creation.isReply && this.messageIds.length === 0 ? this.options.replyTo : undefined;
    const components = this.button.forCreate();
    const id = await this.options.writer.create({
      content: creation.content,
      allowedMentions: this.options.allowedMentions,
      nonce: creation.nonce,
      ...(replyTo === undefined ? {} : { replyTo }),
      ...(components === undefined ? {} : { components }),
    });
    this.button.created(id, { content: creation.content, withButton: components !== undefined });
    this.messageIds.push(id);
    this.typing.posted();
    return id;
  }
}
