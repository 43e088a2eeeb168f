import { randomBytes } from 'node:crypto';
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import {
  type MessageEdit,
  type MessageTarget,
  type OutgoingMessage,
  TargetWriteError,
} from './message-target.ts';
import { WriteBudgets } from './write-budgets.ts';

/**
 * The spaced retries of one Discord write. discord.js has already retried each request 3 times
 * at once (5xx, timeouts, connection resets) before it throws, so these are for an outage
 * longer than a blip: at most 3 × 4 = 12 requests per write, over about 4 s. Creates carry a
 * nonce with `enforce_nonce`, so a retried POST never posts twice.
 */
export const WRITE_RETRY_DELAYS_MS: readonly number[] = [1_000, 3_000];

/** What became of a write: done, failed for good (with why), or dropped because it was stopped. */
export type WriteOutcome<Value = void> =
  | { kind: 'written'; value: Value }
  | { kind: 'failed'; failure: TargetWriteError }
  | { kind: 'abandoned' };

export const ABANDONED: WriteOutcome<never> = { kind: 'abandoned' };

/** A nonce for one message create (Discord keeps at most 25 characters). */
export function newNonce(): string {
  return randomBytes(12).toString('base64url');
}

/** Any error as a classified write failure; one the target did not classify is `other`. */
export function asWriteError(error: unknown): TargetWriteError {
  return error instanceof TargetWriteError
    ? error
    : new TargetWriteError('other', error instanceof Error ? error.message : 'write failed', {
        cause: error,
      });
}

const NEVER = new AbortController().signal;

/**
 * A write Discord confirmed. Members see it at once, while the gateway's echo of it may come
 * later (or, across a reconnect, never): a listener that keeps what a channel shows learns it here.
 */
export type ChannelWrite =
  | {
      kind: 'created';
      channelId: string;
      messageId: string;
      message: OutgoingMessage;
      /** Posted as one of the bot's characters (its webhook, or headed by its name). */
      characterName?: string | undefined;
    }
  | { kind: 'edited'; channelId: string; messageId: string; content: string }
  | { kind: 'deleted'; channelId: string; messageId: string };

interface WriterOptions {
  budgets: WriteBudgets;
  clock: Clock;
  logger: Logger;
  retryDelaysMs: readonly number[];
  written: (write: ChannelWrite) => void;
}

export interface DeliveryPortOptions {
  /** The channels' write budgets, learned from Discord's rate-limit headers; new by default. */
  budgets?: WriteBudgets;
  clock: Clock;
  logger: Logger;
  retryDelaysMs?: readonly number[];
}

/**
 * The one path by which the bot writes to channels: a reply's creates, edits and deletes, its
 * status line and Stop button, notices, failure notices, reminders and stickers. Every write
 * takes a token from its channel's WriteBudgets first, is retried after a 5xx, a lost
 * connection or a 429 (spaced, on the injected clock), names its allowed mentions, and fails
 * as one classified TargetWriteError. Interaction responses are not channel writes (Discord
 * does not count them against the channel) and keep their own path.
 */
export class DeliveryPort {
  readonly budgets: WriteBudgets;
  readonly #options: WriterOptions;
  readonly #listeners = new Set<(write: ChannelWrite) => void>();

  constructor(options: DeliveryPortOptions) {
    this.budgets = options.budgets ?? new WriteBudgets(options.clock);
    this.#options = {
      budgets: this.budgets,
      clock: options.clock,
      logger: options.logger,
      retryDelaysMs: options.retryDelaysMs ?? WRITE_RETRY_DELAYS_MS,
      written: (write) => this.#announce(write),
    };
  }

  /** Hears every confirmed create, edit and delete; returns how to stop hearing them. */
  onWritten(listener: (write: ChannelWrite) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #announce(write: ChannelWrite): void {
    for (const listener of this.#listeners) {
      try {
        listener(write);
      } catch (error) {
        this.#options.logger.warn({ err: error, kind: write.kind }, 'a write listener failed');
      }
    }
  }

  /** The writer of one channel (cheap: the budgets and the clock are the port's). */
  to(target: MessageTarget): ChannelWriter {
    return new ChannelWriter(target, this.#options);
  }
}

/**
 * Writes to one channel through the port. One-off writers call `post`; the reply sink, which
 * chooses what to write only once a token is taken, uses the steps: `reserve` or `takeToken`,
 * then `attempt` around `create` / `edit` / `delete`.
 */
export class ChannelWriter {
  readonly #target: MessageTarget;
  readonly #options: WriterOptions;

  constructor(target: MessageTarget, options: WriterOptions) {
    this.#target = target;
    this.#options = options;
  }

  get channelId(): string {
    return this.#target.channelId;
  }

  /**
   * A message of its own (a notice, a failure notice, a reminder): a token of the channel's
   * budget, then the create with its retries. A create without a nonce is given one, so a
   * retry never posts it twice. `signal` ends the wait, the retries and the request.
   */
  async post(message: OutgoingMessage, signal: AbortSignal = NEVER): Promise<WriteOutcome<string>> {
    if (!(await this.takeToken(signal))) return ABANDONED;
    const once = { ...message, nonce: message.nonce ?? newNonce() };
    return this.attempt(() => this.create(once, signal), signal);
  }

  /** Deletes one of the bot's messages (a failure notice whose Retry ran), paced and retried. */
  async remove(messageId: string, signal: AbortSignal = NEVER): Promise<WriteOutcome> {
    if (!(await this.takeToken(signal))) return ABANDONED;
    return this.attempt(() => this.delete(messageId), signal);
  }

  /**
   * Takes a token if the budget has one now (true); otherwise waits until it may have one, or
   * until `wake` aborts, and answers false: the caller looks at its work again, then asks again.
   */
  async reserve(wake: AbortSignal = NEVER): Promise<boolean> {
    const wait = this.#options.budgets.reserve(this.#target.budgetKey ?? this.channelId);
    if (wait === 0) return true;
    await this.#options.clock.sleep(wait, wake).catch(() => undefined);
    return false;
  }

  /** Waits for a token as long as it takes; false when `signal` aborted first. */
  async takeToken(signal: AbortSignal): Promise<boolean> {
    while (!(await this.reserve(signal))) if (signal.aborted) return false;
    return !signal.aborted;
  }

  /**
   * Runs `write`, retrying a retryable failure after each delay (or the retry-after Discord
   * gave, if longer), each retry with a fresh token. Once `signal` aborts no retry happens: the
   * write is abandoned.
   */
  async attempt<Value>(
    write: () => Promise<Value>,
    signal: AbortSignal = NEVER,
  ): Promise<WriteOutcome<Value>> {
    const delays = this.#options.retryDelaysMs;
    for (let attempt = 0; ; attempt += 1) {
      try {
        return { kind: 'written', value: await write() };
      } catch (error) {
        const failure = asWriteError(error);
        const delay = delays[attempt];
        if (!failure.retryable || delay === undefined) return { kind: 'failed', failure };
        this.#options.logger.warn(
          { failure: failure.failure, attempt: attempt + 1, retryInMs: delay },
          'a Discord write failed; retrying',
        );
        try {
          await this.#options.clock.sleep(Math.max(delay, failure.retryAfterMs ?? 0), signal);
        } catch {
          return ABANDONED;
        }
        if (!(await this.takeToken(signal))) return ABANDONED;
      }
    }
  }

  /** One create request, unpaced: for `attempt`, once a token is taken. Answers the id. */
  async create(message: OutgoingMessage, signal?: AbortSignal): Promise<string> {
    const messageId = await this.#target.send(message, signal);
    const { characterName } = this.#target;
    this.#options.written({
      kind: 'created',
      channelId: this.channelId,
      messageId,
      message,
      characterName,
    });
    return messageId;
  }

  /** One edit request, unpaced: for `attempt`, once a token is taken. */
  async edit(messageId: string, edit: MessageEdit): Promise<void> {
    await this.#target.edit(messageId, edit);
    const { channelId } = this;
    this.#options.written({ kind: 'edited', channelId, messageId, content: edit.content });
  }

  /** One delete request, unpaced: for `attempt`, once a token is taken. */
  async delete(messageId: string): Promise<void> {
    await this.#target.delete(messageId);
    this.#options.written({ kind: 'deleted', channelId: this.channelId, messageId });
  }

  /** The typing indicator: not a message write, so no token (TypingKeeper paces it). */
  sendTyping(): Promise<void> {
    return this.#target.sendTyping();
  }
}
