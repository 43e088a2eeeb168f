import type { Message, PartialMessage } from 'discord.js';
import type { Logger } from '../../core/logger.ts';
import type { Database } from '../../db/database.ts';
import { forgetUserMessage, reviseUserMessage } from '../../db/turn-repository.ts';
import type { ChannelHistory } from '../context/channel-history.ts';

export interface MessageChangesOptions {
  db: Database;
  history: ChannelHistory;
  botUserId: string;
  logger: Logger;
}

/**
 * Edits and deletes of messages already seen: the channel's history window follows them, and so
 * do the stored member turns (context and /export follow the member).
 */
export class MessageChanges {
  private readonly options: MessageChangesOptions;

  constructor(options: MessageChangesOptions) {
    this.options = options;
  }

  updated(old: Message | PartialMessage, message: Message | PartialMessage): void {
    if (message.partial || message.content === null) return;
    // Discord also sends updates when a link's embed resolves: nothing to store then.
    if (!old.partial && old.content === message.content) return;
    const content = message.cleanContent;
    this.options.history.update(message.channelId, { id: message.id, content });
    if (message.author?.id !== this.options.botUserId) {
      // The same readable form a new message is stored in (mentions as @names, never raw ids).
      void this.store(message.id, () => reviseUserMessage(this.options.db, message.id, content));
    }
  }

  deleted(message: Message | PartialMessage): void {
    this.options.history.remove(message.channelId, message.id);
    if (message.author?.id === this.options.botUserId) return;
    void this.store(message.id, () => forgetUserMessage(this.options.db, message.id));
  }

  private async store(messageId: string, change: () => Promise<number>): Promise<void> {
    try {
      const changed = await change();
      if (changed > 0) this.options.logger.debug({ messageId }, 'stored turn follows its message');
    } catch (error) {
      this.options.logger.warn({ err: error, messageId }, 'could not update a stored turn');
    }
  }
}
