import type { CharacterVoice } from './character-voice.ts';
import type { MessageEdit, MessageTarget, OutgoingMessage } from './message-target.ts';

/**
 * A character speaking where no webhook can carry its name (a DM, or a channel where the bot
 * may not manage webhooks): the bot posts itself, each message headed by the character's name.
 */
export class NamedMessageTarget implements MessageTarget {
  readonly #inner: MessageTarget;
  readonly #heading: string;
  readonly #onPosted: ((messageId: string) => void) | undefined;
  readonly characterName: string;

  /** `onPosted`: told the id of every message posted under the name (replies to it address it). */
  constructor(
    inner: MessageTarget,
    voice: CharacterVoice,
    options: { onPosted?: (messageId: string) => void } = {},
  ) {
    this.#inner = inner;
    this.characterName = voice.name;
    this.#heading = `**${voice.name.replace(/[*_~`|\\]/g, '')}**\n`;
    this.#onPosted = options.onPosted;
  }

  get channelId(): string {
    return this.#inner.channelId;
  }

  async send(message: OutgoingMessage, signal?: AbortSignal): Promise<string> {
    const id = await this.#inner.send(
      { ...message, content: this.#headed(message.content) },
      signal,
    );
    this.#onPosted?.(id);
    return id;
  }

  edit(messageId: string, edit: MessageEdit): Promise<void> {
    return this.#inner.edit(messageId, { ...edit, content: this.#headed(edit.content) });
  }

  delete(messageId: string): Promise<void> {
    return this.#inner.delete(messageId);
  }

  sendTyping(): Promise<void> {
    return this.#inner.sendTyping();
  }

  #headed(content: string): string {
    return content === '' ? content : `${this.#heading}${content}`;
  }
}
