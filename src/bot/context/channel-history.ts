import { silentLogger, type Logger } from '../../core/logger.ts';
import { compareSnowflakes, type HistoryMessage } from '../client/inbound-message.ts';

export interface ChannelHistoryOptions {
  /** Messages kept per channel. */
  perChannel: number;
  /** Channels kept; the least recently used is dropped beyond this. */
  maxChannels: number;
  /** Reads the newest `limit` messages from Discord, newest first (used once per channel). */
  fetchRecent(channelId: string, limit: number): Promise<HistoryMessage[]>;
  /** Where a failed fetch is reported (once per attempt). */
  logger?: Logger;
}

interface Window {
  /** Oldest first. */
  messages: HistoryMessage[];
  filled: boolean;
  filling: Promise<void> | undefined;
}

/**
 * A per-channel window of recent messages, fed by gateway events (create, edit, delete) and
 * filled from Discord once, on first use. In steady state a turn makes zero history fetches.
 */
export class ChannelHistory {
  private readonly windows = new Map<string, Window>();
  private readonly options: ChannelHistoryOptions;

  constructor(options: ChannelHistoryOptions) {
    this.options = options;
  }

  /**
   * A message in its place by time: the bot's own writes are added when Discord confirms them,
   * so a member's message the gateway delivers after them may be older.
   */
  add(channelId: string, message: HistoryMessage): void {
    const window = this.windowFor(channelId);
    if (window.messages.some((existing) => existing.id === message.id)) return;
    let index = window.messages.length;
    while (index > 0 && isAfter(window.messages[index - 1] as HistoryMessage, message)) index -= 1;
    window.messages.splice(index, 0, message);
    if (window.messages.length > this.options.perChannel) window.messages.shift();
  }

  update(channelId: string, message: Pick<HistoryMessage, 'id' | 'content'>): void {
    const existing = this.windows
      .get(channelId)
      ?.messages.find((candidate) => candidate.id === message.id);
    if (existing !== undefined) existing.content = message.content;
  }

  remove(channelId: string, messageId: string): void {
    const window = this.windows.get(channelId);
    if (window !== undefined)
      window.messages = window.messages.filter((message) => message.id !== messageId);
  }

  forgetChannel(channelId: string): void {
    this.windows.delete(channelId);
  }

  /**
   * The channel's recent messages, oldest first, filling the window from Discord the first time.
   * A fetch that fails (or answers nonsense) is logged and the turn goes on with what the window
   * already has (the trigger, messages seen since); the next turn tries the fetch again.
   */
  async recent(channelId: string): Promise<readonly HistoryMessage[]> {
    const window = this.windowFor(channelId);
    if (!window.filled) {
      window.filling ??= this.fill(channelId, window);
      await window.filling;
    }
    return window.messages;
  }

  private async fill(channelId: string, window: Window): Promise<void> {
    try {
      const fetched = await this.options.fetchRecent(channelId, this.options.perChannel);
      if (!Array.isArray(fetched)) throw new TypeError('the history fetch returned no list');
      const known = new Set(window.messages.map((message) => message.id));
      const merged = [...fetched.filter((message) => !known.has(message.id)), ...window.messages];
      merged.sort((a, b) => a.createdAt - b.createdAt || compareSnowflakes(a.id, b.id));
      window.messages = merged.slice(-this.options.perChannel);
      window.filled = true;
    } catch (error) {
      (this.options.logger ?? silentLogger).warn(
        { err: error, channelId },
        'could not read the channel history; answering from what is known',
      );
    } finally {
      window.filling = undefined;
    }
  }

  private windowFor(channelId: string): Window {
    let window = this.windows.get(channelId);
    if (window === undefined) {
      window = { messages: [], filled: false, filling: undefined };
      if (this.windows.size >= this.options.maxChannels) {
        const oldest = this.windows.keys().next().value;
        if (oldest !== undefined) this.windows.delete(oldest);
      }
    } else {
      this.windows.delete(channelId);
    }
    this.windows.set(channelId, window);
    return window;
  }
}

function isAfter(a: HistoryMessage, b: HistoryMessage): boolean {
  return (a.createdAt - b.createdAt || compareSnowflakes(a.id, b.id)) > 0;
}
