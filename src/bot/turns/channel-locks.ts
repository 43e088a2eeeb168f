import { Mutex } from 'async-mutex';
import { type Clock, WAIT_CANCELLED } from '../../core/clock.ts';

/** A held channel lock. Releasing is idempotent and only ever releases THIS holder's lock. */
export interface ChannelLease {
  readonly channelId: string;
  /** Unique per acquisition: a stale holder's token never matches a newer holder's. */
  readonly token: number;
  /** Aborted when the lease is force-released after the hold timeout. */
  readonly signal: AbortSignal;
  release(): void;
}

interface Holder {
  token: number;
  release: () => void;
  controller: AbortController;
  timer: { cancel: () => void };
}

export interface ChannelLocksOptions {
  clock: Clock;
  /** A holder past this is presumed stuck: its lease is aborted and the lock handed on. */
  holdTimeoutMs: number;
}

/**
 * One mutex per channel with ownership tokens: a holder whose lock was force-released (it
 * held it past the timeout) can never release the next holder's lock when it ends late. The
 * per-channel state is dropped when idle, so memory stays proportional to busy channels.
 */
export class ChannelLocks {
  private readonly mutexes = new Map<
    string,
    { mutex: Mutex; holder: Holder | undefined; waiters: number }
  >();
  private nextToken = 1;
  private readonly options: ChannelLocksOptions;

  constructor(options: ChannelLocksOptions) {
    this.options = options;
  }

  isBusy(channelId: string): boolean {
    return this.mutexes.get(channelId)?.mutex.isLocked() ?? false;
  }

  async acquire(channelId: string): Promise<ChannelLease> {
    const entry = this.entryFor(channelId);
    entry.waiters += 1;
    let releaseMutex: () => void;
    try {
      releaseMutex = await entry.mutex.acquire();
    } finally {
      entry.waiters -= 1;
    }
    const token = this.nextToken++;
    const controller = new AbortController();
    const releaseIfCurrent = (): void => {
      if (entry.holder?.token !== token) return;
      entry.holder.timer.cancel();
      entry.holder = undefined;
      releaseMutex();
      if (entry.waiters === 0 && !entry.mutex.isLocked()) this.mutexes.delete(channelId);
    };
    entry.holder = {
      token,
      release: releaseIfCurrent,
      controller,
      timer: this.startTimer(() => {
        controller.abort(
          new Error(`channel lock held longer than ${this.options.holdTimeoutMs} ms`),
        );
        releaseIfCurrent();
      }),
    };
    return { channelId, token, signal: controller.signal, release: releaseIfCurrent };
  }

  private entryFor(channelId: string): {
    mutex: Mutex;
    holder: Holder | undefined;
    waiters: number;
  } {
    let entry = this.mutexes.get(channelId);
    if (entry === undefined) {
      entry = { mutex: new Mutex(), holder: undefined, waiters: 0 };
      this.mutexes.set(channelId, entry);
    }
    return entry;
  }

  private startTimer(onTimeout: () => void): { cancel: () => void } {
    const controller = new AbortController();
    this.options.clock
      .sleep(this.options.holdTimeoutMs, controller.signal)
      .then(onTimeout, () => undefined);
    return { cancel: () => controller.abort(WAIT_CANCELLED) };
  }
}
