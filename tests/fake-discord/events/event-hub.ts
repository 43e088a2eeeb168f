import type { MessageRecord } from '../state/records.ts';
import type { RequestLogEntry } from '../http/request-log.ts';
import type { InteractionCallbackRecord } from '../services/interaction-records.ts';

/** A gateway connection's life, as seen by the server. */
export type GatewayLifecycleEvent =
  | { kind: 'connected'; connectionId: number; path: string; query: string }
  | {
      kind: 'identified';
      connectionId: number;
      sessionId: string;
      intents: number;
      /** `[shard_id, num_shards]` of the IDENTIFY. */
      shard: readonly [number, number];
    }
  | { kind: 'ready-sent'; connectionId: number; sessionId: string; guilds: number }
  | { kind: 'resumed'; connectionId: number; sessionId: string; replayed: number }
  | { kind: 'heartbeat'; connectionId: number; sequence: number | null }
  | { kind: 'closed'; connectionId: number; code: number; by: 'client' | 'server' }
  | { kind: 'refused'; status: number };

/** Everything observable that happens in the fake Discord, in order. */
export type FakeDiscordEvent =
  | { type: 'message-create'; message: MessageRecord }
  | { type: 'message-update'; message: MessageRecord }
  | { type: 'message-delete'; message: MessageRecord }
  | { type: 'typing'; channelId: string; userId: string }
  | { type: 'reaction'; messageId: string; userId: string; emoji: string; added: boolean }
  | { type: 'request'; entry: RequestLogEntry }
  | { type: 'interaction-callback'; interactionId: string; callback: InteractionCallbackRecord }
  | { type: 'commands-update'; guildId: string | null }
  | { type: 'gateway'; event: GatewayLifecycleEvent };

export interface WaitOptions {
  signal?: AbortSignal;
  /**
   * A safety net so a broken expectation fails with a clear message instead of the test
   * runner's timeout. It is a deadline, not a sleep: the wait resolves on the event itself.
   */
  timeoutMs?: number;
}

export const DEFAULT_WAIT_TIMEOUT_MS = 10_000;

type Listener = (event: FakeDiscordEvent) => void;

/**
 * Synchronous publish/subscribe of FakeDiscordEvents, and `waitFor`, which resolves on the
 * first event a selector accepts — tests await events instead of polling with sleeps.
 */
export class EventHub {
  readonly #listeners = new Set<Listener>();
  readonly #defaultTimeoutMs: number;

  constructor(options: { defaultTimeoutMs?: number } = {}) {
    this.#defaultTimeoutMs = options.defaultTimeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS;
  }

  emit(event: FakeDiscordEvent): void {
    for (const listener of [...this.#listeners]) listener(event);
  }

  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Resolves with the selector's first non-undefined result for an event emitted from now on.
   * `description` names what was awaited in the timeout error.
   */
  waitFor<T>(
    select: (event: FakeDiscordEvent) => T | undefined,
    description: string,
    options: WaitOptions = {},
  ): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timeoutMs = options.timeoutMs ?? this.#defaultTimeoutMs;
      const finish = (): void => {
        unsubscribe();
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
      };
      const onAbort = (): void => {
        finish();
        const reason: unknown = options.signal?.reason;
        reject(
          reason instanceof Error ? reason : new Error(`aborted while waiting for ${description}`),
        );
      };
      const unsubscribe = this.subscribe((event) => {
        const selected = select(event);
        if (selected === undefined) return;
        finish();
        resolve(selected);
      });
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${description}`));
      }, timeoutMs);
      timer.unref();
      if (options.signal?.aborted === true) onAbort();
      else options.signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
