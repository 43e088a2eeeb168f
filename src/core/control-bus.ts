/**
 * Small control messages between the bot processes that share one database: a stop for a reply
 * another process streams, a settings change, spent tokens. Delivery is best effort and at most
 * once (PostgreSQL NOTIFY): a process that is not listening at that moment misses the message,
 * so every receiver treats a message as a hint to act on or to re-read the database, never as
 * the only record of a change.
 */
export interface ControlBus {
  /**
   * Whether a message can reach another process. False on the embedded database (one process):
   * callers then skip waiting for answers nobody else could give.
   */
  readonly shared: boolean;
  /**
   * Sends `payload` (JSON, small: the whole message stays under PostgreSQL's 8000-byte NOTIFY
   * limit) to every subscriber of `topic` in every process, this one included.
   */
  publish(topic: string, payload: unknown): Promise<void>;
  /**
   * Calls `listener` with each payload published on `topic`, unvalidated: the subscriber parses
   * it. A listener that throws is logged; it never reaches the publisher. Returns the unsubscribe.
   */
  subscribe(topic: string, listener: (payload: unknown) => void): () => void;
}

/**
 * Published locally (never sent) when a lost listening connection is back: messages sent while
 * it was away are gone, so caches that rely on the bus re-read what they hold.
 */
export const CONTROL_BUS_RESUMED = 'control-bus.resumed';

/** A bus that reaches this process only: the embedded database, and tests. */
export class LocalControlBus implements ControlBus {
  readonly shared: boolean;
  private readonly listeners = new Map<string, Set<(payload: unknown) => void>>();
  private readonly onListenerError: (error: unknown, topic: string) => void;

  /** `shared`: tests that play several processes in one (default false). */
  constructor(
    options: { onListenerError?: (error: unknown, topic: string) => void; shared?: boolean } = {},
  ) {
    this.onListenerError = options.onListenerError ?? (() => undefined);
    this.shared = options.shared ?? false;
  }

  publish(topic: string, payload: unknown): Promise<void> {
    this.deliver(topic, payload);
    return Promise.resolve();
  }

  subscribe(topic: string, listener: (payload: unknown) => void): () => void {
    const set = this.listeners.get(topic) ?? new Set();
    set.add(listener);
    this.listeners.set(topic, set);
    return () => set.delete(listener);
  }

  /**
   * Hands a received message to the topic's listeners, each isolated from the others. False
   * when nobody here listens to the topic (one a newer version added, or not yet subscribed).
   */
  deliver(topic: string, payload: unknown): boolean {
    const listeners = [...(this.listeners.get(topic) ?? [])];
    for (const listener of listeners) {
      try {
        listener(payload);
      } catch (error) {
        this.onListenerError(error, topic);
      }
    }
    return listeners.length > 0;
  }
}
