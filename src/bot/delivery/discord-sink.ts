import type { Clock } from '../../core/clock.ts';
import { DeliveryError } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';
import type { DeliverySink } from '../../stream/delivery-sink.ts';
import { type AllowedMentions, type MessageTarget, TargetWriteError } from './message-target.ts';
import type { TypingAllowance } from './typing-allowance.ts';
import { TypingKeeper } from './typing-keeper.ts';
import type { WriteBudgets } from './write-budgets.ts';

export interface DiscordSinkOptions {
  target: MessageTarget;
  budgets: WriteBudgets;
  /** The process-wide allowance of typing calls (shared by every channel). */
  typing: TypingAllowance;
  clock: Clock;
  logger: Logger;
  allowedMentions: AllowedMentions;
  /** The member message the turn answers; the first message replies to it (without a ping). */
  replyTo: string | undefined;
  /** Discord's content limit (2000). */
  limit: number;
}

type Slot = {
  id: string | undefined;
  desired: string;
  written: string | undefined;
  sealed: boolean;
};

/**
 * Delivers one turn to a Discord channel. The pipeline decides WHAT to send; this decides WHEN:
 * every write first takes a token from the channel's shared WriteBudgets (learned from
 * Discord's rate-limit headers), so a burst is smoothed instead of answered with 429s. In
 * message-per-block mode, chunks that meet an empty bucket are merged into the next message
 * (up to the limit), so a long reply finishes sooner in fewer messages. Every send and edit
 * carries explicit allowed mentions.
 */
export class DiscordSink implements DeliverySink {
  private readonly options: DiscordSinkOptions;
  /** Queued chunks; a status line separates generations, which are never merged together. */
  private readonly chunks: Array<{ text: string; generation: number }> = [];
  private generation = 0;
  private readonly slots: Slot[] = [];
  private readonly messageIds: string[] = [];
  private statusDesired: string | undefined;
  /** The latest status not yet shown: even a tool faster than one write is shown once. */
  private statusToShow: { text: string; generation: number } | undefined;
  private statusWritten: string | undefined;
  private statusMessageId: string | undefined;
  private running: Promise<void> | undefined;
  private waitController = new AbortController();
  private readonly typing: TypingKeeper;
  private closed = false;
  /** Set when Discord refused to let the bot write here at all (missing permission). */
  failure: TargetWriteError | undefined;

  constructor(options: DiscordSinkOptions) {
    this.options = options;
    this.typing = new TypingKeeper({
      target: options.target,
      clock: options.clock,
      allowance: options.typing,
    });
  }

  pushMessage(chunk: string): void {
    if (this.closed || chunk.trim() === '') return;
    this.chunks.push({ text: chunk, generation: this.generation });
    this.kick();
  }

  updateCurrent(content: string): void {
    if (this.closed || content.trim() === '') return;
    const current = this.slots.at(-1);
    if (current !== undefined && !current.sealed) {
      current.desired = content;
    } else {
      this.slots.push({ id: undefined, desired: content, written: undefined, sealed: false });
    }
    this.kick();
  }

  sealCurrent(): void {
    const current = this.slots.at(-1);
    if (current !== undefined) current.sealed = true;
  }

  setTyping(active: boolean): void {
    this.typing.set(active && !this.closed);
  }

  setStatus(status: string | undefined): void {
    if (this.closed && status !== undefined) return;
    this.statusDesired = status;
    if (status !== undefined && status !== this.statusWritten) {
      this.generation += 1;
      this.statusToShow = { text: status, generation: this.generation };
    }
    this.kick();
  }

  discardPending(): void {
    this.closed = true;
    this.typing.set(false);
    this.chunks.length = 0;
    for (const slot of this.slots) slot.desired = slot.written ?? '';
    this.statusDesired = undefined;
    this.statusToShow = undefined;
    this.waitController.abort();
    this.kick();
  }

  async flush(signal?: AbortSignal): Promise<string[]> {
    while (this.running !== undefined) {
      if (signal?.aborted) break;
      await this.running;
    }
    await this.typing.stop();
    if (this.failure !== undefined) {
      throw new DeliveryError(this.failure.failure, 'the bot may not write in this channel', {
        cause: this.failure,
      });
    }
    return [...this.messageIds];
  }

  private kick(): void {
    this.running ??= this.drain().finally(() => {
      this.running = undefined;
      if (this.hasWork()) this.kick();
    });
  }

  private hasWork(): boolean {
    return (
      this.failure === undefined &&
      (this.chunks.length > 0 ||
        this.nextSlot() !== undefined ||
        this.statusToShow !== undefined ||
        this.statusCleared())
    );
  }

  private async drain(): Promise<void> {
    while (this.hasWork()) {
      if (this.statusCleared()) {
        await this.clearStatus();
        continue;
      }
      if (await this.waitForBudget()) await this.writeNext();
    }
  }

  /** True once a token is taken; false if the wait was interrupted (re-check the work). */
  private async waitForBudget(): Promise<boolean> {
    const wait = this.options.budgets.reserve(this.options.target.channelId);
    if (wait === 0) return true;
    try {
      await this.options.clock.sleep(wait, this.waitController.signal);
    } catch {
      this.waitController = new AbortController();
    }
    return false;
  }

  private nextSlot(): Slot | undefined {
    return this.slots.find((slot) => slot.desired !== slot.written && slot.desired.trim() !== '');
  }

  /** Writes one thing. A failed write is logged and not retried (no retry storms). */
  private async writeNext(): Promise<void> {
    const first = this.chunks[0];
    const status = this.statusToShow;
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
      const message = content;
      await this.attempt(() => this.post(message));
      return;
    }
    const slot = this.nextSlot();
    if (slot !== undefined) {
      const desired = slot.desired;
      await this.attempt(() => this.writeSlot(slot, desired));
      slot.written = desired;
      return;
    }
    if (status !== undefined) {
      // The status line comes after the text that preceded the tool call.
      this.statusToShow = undefined;
      await this.attempt(() => this.writeStatus(status.text));
      this.statusWritten = status.text;
    }
  }

  /** A status is on screen that nobody wants any more (and none waits to be shown). */
  private statusCleared(): boolean {
    return (
      this.statusToShow === undefined &&
      this.statusDesired === undefined &&
      this.statusWritten !== undefined
    );
  }

  private async attempt(write: () => Promise<unknown>): Promise<void> {
    try {
      await write();
    } catch (error) {
      this.handleWriteError(error);
    }
  }

  private async writeSlot(slot: Slot, content: string): Promise<void> {
    if (slot.id === undefined) {
      slot.id = await this.post(content);
    } else {
      try {
        await this.options.target.edit(slot.id, {
          content,
          allowedMentions: this.options.allowedMentions,
        });
      } catch (error) {
        if (
          !(error instanceof TargetWriteError) ||
          (error.failure !== 'gone' && error.failure !== 'too_old_to_edit')
        ) {
          throw error;
        }
        // The message was deleted or can no longer be edited: carry on in a fresh one.
        this.options.logger.debug(
          { failure: error.failure },
          'edit refused; continuing in a new message',
        );
        slot.id = await this.post(content);
      }
    }
  }

  private async post(content: string): Promise<string> {
    const replyTo = this.messageIds.length === 0 ? this.options.replyTo : undefined;
    const id = await this.options.target.send({
      content,
      allowedMentions: this.options.allowedMentions,
      ...(replyTo === undefined ? {} : { replyTo }),
    });
    this.messageIds.push(id);
    this.typing.posted();
    return id;
  }

  private async writeStatus(status: string): Promise<void> {
    if (this.statusMessageId === undefined) {
      this.statusMessageId = await this.options.target.send({
        content: status,
        allowedMentions: this.options.allowedMentions,
      });
    } else {
      await this.options.target.edit(this.statusMessageId, {
        content: status,
        allowedMentions: this.options.allowedMentions,
      });
    }
  }

  private async clearStatus(): Promise<void> {
    const id = this.statusMessageId;
    this.statusMessageId = undefined;
    this.statusWritten = undefined;
    if (id === undefined) return;
    await this.options.target.delete(id).catch((error: unknown) => {
      this.options.logger.debug({ err: error }, 'status message already gone');
    });
  }

  private handleWriteError(error: unknown): void {
    if (error instanceof TargetWriteError && error.failure === 'forbidden') {
      this.failure = error;
      this.options.logger.warn(
        { channelId: this.options.target.channelId },
        'missing permission to write here',
      );
      return;
    }
    if (error instanceof TargetWriteError && error.failure === 'rate_limited') {
      this.options.logger.warn(
        { channelId: this.options.target.channelId },
        'write rate-limited by Discord',
      );
      return;
    }
    this.options.logger.warn({ err: error }, 'a Discord write failed; skipping it');
  }
}
