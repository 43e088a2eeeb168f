import type { ChannelWriter } from './delivery-port.ts';
import type { AllowedMentions, ButtonSpec } from './message-target.ts';

/** The message showing the button, with what it says (a removal edit repeats the content). */
interface Shown {
  messageId: string;
  content: string;
}

/**
 * The Stop button on a reply's first message, from its create until the reply ends. The end
 * takes it away with the fewest writes: a first message created after the end never gets it;
 * an edit of its message after the end carries `components: []`; otherwise one removal edit
 * is owed, paced like every other write of the channel.
 */
export class ReplyButton {
  private readonly button: ButtonSpec | undefined;
  private shown: Shown | undefined;
  private placed = false;
  private ended = false;

  constructor(button: ButtonSpec | undefined) {
    this.button = button;
  }

  /** The buttons of a new message: the reply's first one gets it, while the reply runs. */
  forCreate(): ButtonSpec[] | undefined {
    if (this.button === undefined || this.placed || this.ended) return undefined;
    return [this.button];
  }

  /** A message was created with `forCreate()`'s buttons (only the reply's first is counted). */
  created(messageId: string, options: { content: string; withButton: boolean }): void {
    this.placed = true;
    if (options.withButton) this.shown = { messageId, content: options.content };
  }

  /** The buttons an edit of `messageId` sets: none, once the reply ended, on its message. */
  forEdit(messageId: string): { components?: [] } {
    return this.ended && this.shown?.messageId === messageId ? { components: [] } : {};
  }

  /** `messageId` now says `content`, with the components `forEdit` gave. */
  edited(messageId: string, content: string): void {
    if (this.shown?.messageId !== messageId) return;
    this.shown = this.ended ? undefined : { messageId, content };
  }

  /**
   * An edit of `messageId` failed for good. If it carried the removal, the removal is not
   * tried again on its own: Discord just refused this message's edits, retries included.
   */
  editFailed(messageId: string): void {
    if (this.ended) this.lost(messageId);
  }

  /** The message is gone (deleted, or no longer editable): so is its button. */
  lost(messageId: string): void {
    if (this.shown?.messageId === messageId) this.shown = undefined;
  }

  /** The reply is complete, stopped or failed: no new button, and the shown one goes. */
  end(): void {
    this.ended = true;
  }

  /** A removal edit is owed: the reply ended with the button still shown. */
  removalDue(): boolean {
    return this.ended && this.shown !== undefined;
  }

  /**
   * The owed removal edit (its content unchanged), taken once: written or failed for good, it
   * is not tried again.
   */
  takeRemoval(options: {
    writer: ChannelWriter;
    allowedMentions: AllowedMentions;
  }): (() => Promise<void>) | undefined {
    const shown = this.ended ? this.shown : undefined;
    if (shown === undefined) return undefined;
    this.shown = undefined;
    return () =>
      options.writer.edit(shown.messageId, {
        content: shown.content,
        allowedMentions: options.allowedMentions,
        components: [],
      });
  }
}
