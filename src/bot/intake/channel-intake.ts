/**
 * Runs the intake of each channel's messages one after another, in the order the gateway
 * delivered them, so the scheduler sees a channel's messages in that order even when their
 * database steps (settings, budget, claim) take different times — or wait out an outage.
 * Channels do not wait for each other. A channel's backlog is bounded: past `maxBacklog` a
 * message is refused at once and the caller tells the member.
 */
export class ChannelIntake {
  private readonly tails = new Map<string, { tail: Promise<void>; backlog: number }>();
  private readonly maxBacklog: number;
  private readonly onError: (error: unknown) => void;

  constructor(options: { maxBacklog: number; onError: (error: unknown) => void }) {
    this.maxBacklog = options.maxBacklog;
    this.onError = options.onError;
  }

  /** Messages of `channelId` accepted and not yet through intake. */
  backlog(channelId: string): number {
    return this.tails.get(channelId)?.backlog ?? 0;
  }

  /** Queues `task` behind the channel's earlier ones; false when the backlog is full. */
  enqueue(channelId: string, task: () => Promise<void>): boolean {
    const state = this.tails.get(channelId) ?? { tail: Promise.resolve(), backlog: 0 };
    if (state.backlog >= this.maxBacklog) return false;
    state.backlog += 1;
    const run = state.tail.then(task).catch(this.onError);
    state.tail = run.finally(() => {
      state.backlog -= 1;
      if (state.backlog === 0 && this.tails.get(channelId) === state) this.tails.delete(channelId);
    });
    this.tails.set(channelId, state);
    return true;
  }

  /** Resolves once every message accepted so far is through intake. */
  async drained(): Promise<void> {
    while (this.tails.size > 0) await Promise.all([...this.tails.values()].map((s) => s.tail));
  }
}
