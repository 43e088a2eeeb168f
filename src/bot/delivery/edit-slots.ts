import { newNonce } from './delivery-port.ts';

/** One message of edit-in-place mode: what it should say, and what Discord shows. */
export interface Slot {
  id: string | undefined;
  desired: string;
  written: string | undefined;
  /** The content whose write failed for good: not retried until newer content arrives. */
  failed: string | undefined;
  /** This message's lost ending was already announced by a gap notice. */
  gapAnnounced: boolean;
  sealed: boolean;
  /** The nonce of the create that makes this message (a retried create reuses it). */
  nonce: string;
}

/** One message create of the sink (a reply chunk, or the gap notice). */
export interface Creation {
  content: string;
  /** Reused by every retry of this create: Discord then never makes it twice. */
  nonce: string;
  /** Whether it may be the reply to the trigger (the gap notice never is). */
  isReply: boolean;
}

/**
 * The growing messages of edit-in-place mode. The latest content wins; a slot is done when
 * Discord shows its desired content, and lost when its final write failed for good and it was
 * sealed (the next message then follows a gap).
 */
export class EditSlots {
  private readonly slots: Slot[] = [];

  update(content: string): void {
    const current = this.slots.at(-1);
    if (current !== undefined && !current.sealed) {
      current.desired = content;
      return;
    }
    this.slots.push({
      id: undefined,
      desired: content,
      written: undefined,
      failed: undefined,
      gapAnnounced: false,
      sealed: false,
      nonce: newNonce(),
    });
  }

  seal(): void {
    const current = this.slots.at(-1);
    if (current !== undefined) current.sealed = true;
  }

  /** A stop: nothing more is written; what Discord shows is final. */
  discard(): void {
    for (const slot of this.slots) slot.desired = slot.written ?? '';
  }

  /** The first slot with content still to write (and not already failed with it). */
  next(): Slot | undefined {
    return this.slots.find(
      (slot) =>
        slot.desired !== slot.written && slot.desired !== slot.failed && slot.desired.trim() !== '',
    );
  }

  /** Sealed slots before `slot` whose ending never landed and was not announced yet. */
  unannouncedLosses(slot: Slot): Slot[] {
    return this.slots.filter(
      (earlier) => earlier !== slot && earlier.sealed && !earlier.gapAnnounced && !isDone(earlier),
    );
  }

  /** Some message does not show its final content. */
  unfinished(): boolean {
    return this.slots.some((slot) => !isDone(slot));
  }
}

function isDone(slot: Slot): boolean {
  return slot.desired === slot.written || slot.desired.trim() === '';
}
