import {
  type MessageEdit,
  type MessageTarget,
  type OutgoingMessage,
  TargetWriteError,
  type TargetFailure,
} from '../../src/bot/delivery/message-target.ts';

export type RecordedWrite =
  | { kind: 'send'; id: string; message: OutgoingMessage; at: number }
  | { kind: 'edit'; id: string; edit: MessageEdit; at: number }
  | { kind: 'delete'; id: string; at: number }
  | { kind: 'typing'; at: number };

/** A MessageTarget that records every write, with programmable failures. */
export class RecordingTarget implements MessageTarget {
  readonly writes: RecordedWrite[] = [];
  private nextId = 1000;
  private readonly failures: Array<{ kind: 'send' | 'edit'; failure: TargetFailure }> = [];
  readonly channelId: string;
  private readonly now: () => number;

  constructor(channelId = '900000000000000001', now: () => number = () => 0) {
    this.channelId = channelId;
    this.now = now;
  }

  failNext(kind: 'send' | 'edit', failure: TargetFailure): void {
    this.failures.push({ kind, failure });
  }

  send(message: OutgoingMessage): Promise<string> {
    this.throwIfScripted('send');
    const id = String(this.nextId++);
    this.writes.push({ kind: 'send', id, message, at: this.now() });
    return Promise.resolve(id);
  }

  edit(messageId: string, edit: MessageEdit): Promise<void> {
    this.throwIfScripted('edit');
    this.writes.push({ kind: 'edit', id: messageId, edit, at: this.now() });
    return Promise.resolve();
  }

  delete(messageId: string): Promise<void> {
    this.writes.push({ kind: 'delete', id: messageId, at: this.now() });
    return Promise.resolve();
  }

  sendTyping(): Promise<void> {
    this.writes.push({ kind: 'typing', at: this.now() });
    return Promise.resolve();
  }

  /** What a member sees: the latest content of every message still present, in order. */
  visible(): string[] {
    const contents = new Map<string, string>();
    for (const write of this.writes) {
      if (write.kind === 'send') contents.set(write.id, write.message.content);
      if (write.kind === 'edit') contents.set(write.id, write.edit.content);
      if (write.kind === 'delete') contents.delete(write.id);
    }
    return [...contents.values()];
  }

  contentWrites(): Array<Extract<RecordedWrite, { kind: 'send' | 'edit' }>> {
    return this.writes.filter(
      (write): write is Extract<RecordedWrite, { kind: 'send' | 'edit' }> =>
        write.kind === 'send' || write.kind === 'edit',
    );
  }

  private throwIfScripted(kind: 'send' | 'edit'): void {
    const index = this.failures.findIndex((failure) => failure.kind === kind);
    if (index === -1) return;
    const [failure] = this.failures.splice(index, 1);
    throw new TargetWriteError(failure?.failure ?? 'other', `scripted ${kind} failure`);
  }
}
