import type { Logger } from '../../core/logger.ts';
import type { ChannelWriter } from './delivery-port.ts';
import type { AllowedMentions } from './message-target.ts';

/**
 * The live tool status line of a turn ("Using `search`…"): what is wanted, what waits to be
 * shown and what Discord shows. A status begins a new generation: text queued before it is
 * never merged with text after it, so the line appears between them.
 */
export class StatusLine {
  generation = 0;
  /** The latest status not yet shown: even a tool faster than one write is shown once. */
  toShow: { text: string; generation: number } | undefined;
  messageId: string | undefined;
  private desired: string | undefined;
  private written: string | undefined;

  want(status: string | undefined): void {
    this.desired = status;
    if (status !== undefined && status !== this.written) {
      this.generation += 1;
      this.toShow = { text: status, generation: this.generation };
    }
  }

  /** A stop: nothing more is shown, and what is on screen goes. */
  drop(): void {
    this.desired = undefined;
    this.toShow = undefined;
  }

  shown(text: string): void {
    this.toShow = undefined;
    this.written = text;
  }

  /** A status is on screen that nobody wants any more (and none waits to be shown). */
  cleared(): boolean {
    return this.toShow === undefined && this.desired === undefined && this.written !== undefined;
  }

  /** Posts the status message, or edits it when it is already there. */
  async write(
    sink: { writer: ChannelWriter; allowedMentions: AllowedMentions },
    status: { content: string; nonce: string },
  ): Promise<void> {
    const { writer, allowedMentions } = sink;
    if (this.messageId === undefined) {
      this.messageId = await writer.create({ ...status, allowedMentions });
    } else {
      await writer.edit(this.messageId, { content: status.content, allowedMentions });
    }
  }

  /** Deletes the status message nobody wants any more, if it was ever posted. */
  async clear(sink: { writer: ChannelWriter; logger: Logger }): Promise<void> {
    const id = this.messageId;
    this.messageId = undefined;
    this.written = undefined;
    if (id === undefined) return;
    await sink.writer.delete(id).catch((error: unknown) => {
      sink.logger.debug({ err: error }, 'status message already gone');
    });
  }
}
