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
  /** Every write that was refused by a scripted failure, in order. */
  readonly refused: Array<
    { kind: 'send'; message: OutgoingMessage } | { kind: 'edit'; id: string; edit: MessageEdit }
  > = [];
  readonly channelId: string;
  private readonly now: () => number;

  constructor(channelId = '900000000000000001', now: () => number = () => 0) {
    this.channelId = channelId;
    this.now = now;
  }

  /** The next `times` writes of this kind fail with `failure` (default once). */
  failNext(kind: 'send' | 'edit', failure: TargetFailure, times = 1): void {
    for (let index = 0; index < times; index += 1) this.failures.push({ kind, failure });
  }

  send(message: OutgoingMessage): Promise<string> {
    const refusal = this.takeFailure('send');
    if (refusal !== undefined) {
      this.refused.push({ kind: 'send', message });
      return Promise.reject(refusal);
    }
    const id = String(this.nextId++);
    this.writes.push({ kind: 'send', id, message, at: this.now() });
    return Promise.resolve(id);
  }

  edit(messageId: string, edit: MessageEdit): Promise<void> {
    const refusal = this.takeFailure('edit');
    if (refusal !== undefined) {
      this.refused.push({ kind: 'edit', id: messageId, edit });
      return Promise.reject(refusal);
    }
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

  private takeFailure(kind: 'send' | 'edit'): TargetWriteError | undefined {
    const index = this.failures.findIndex((failure) => failure.kind === kind);
    if (index === -1) return undefined;
    const [failure] = this.failures.splice(index, 1);
    return new TargetWriteError(failure?.failure ?? 'other', `scripted ${kind} failure`);
  }
}
