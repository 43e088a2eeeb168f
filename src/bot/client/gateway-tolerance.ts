import type { Message } from 'discord.js';
import type { Logger } from '../../core/logger.ts';
import { toHistoryMessage, type HistoryMessage } from './inbound-message.ts';

/**
 * Wraps a gateway event handler so that whatever it throws — at once or later — is logged
 * with the event's name and costs that one event, never the process: a Discord-compatible
 * server may send unknown or null fields our code does not expect.
 */
export function guardEvent<Arguments extends unknown[]>(
  event: string,
  logger: Logger,
  handler: (...parameters: Arguments) => unknown,
): (...parameters: Arguments) => void {
  const report = (error: unknown): void => {
    logger.warn({ err: error, event }, 'could not handle a gateway event; skipped it');
  };
  return (...parameters) => {
    try {
      const result = handler(...parameters);
      if (result instanceof Promise) result.catch(report);
    } catch (error) {
      report(error);
    }
  };
}

/** The history messages of a fetch, leaving out (and logging once) the ones we cannot read. */
export function historyMessagesOf(
  messages: readonly Message[],
  options: { channelId: string; logger: Logger },
): HistoryMessage[] {
  const read: HistoryMessage[] = [];
  let unreadable = 0;
  let firstError: unknown;
  for (const message of messages) {
    try {
      read.push(toHistoryMessage(message));
    } catch (error) {
      unreadable += 1;
      firstError ??= error;
    }
  }
  if (unreadable > 0) {
    options.logger.warn(
      { err: firstError, channelId: options.channelId, unreadable },
      'left out history messages that could not be read',
    );
  }
  return read;
}
