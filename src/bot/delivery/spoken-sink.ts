import type { DeliveryResult, DeliverySink } from '../../stream/reply/delivery-sink.ts';
import { SentenceSplitter } from '../../stream/speech/sentence-splitter.ts';
import type { SpokenReply, VoiceReply } from './voice-reply.ts';

/**
 * A reply sink that also speaks: every text the reply sink is handed goes on to Discord as
 * usual, and its sentences, as each completes, to a VoiceReply. Flushing waits for the voice
 * messages too; their ids join the reply's, so the record and the context know them.
 */
export class SpokenSink implements DeliverySink {
  readonly #inner: DeliverySink;
  readonly #voice: VoiceReply;
  readonly #splitter = new SentenceSplitter();
  readonly #spoken: (reply: SpokenReply) => Promise<void>;
  /** How much of the growing message (edit mode) was already heard. */
  #heardLength = 0;

  constructor(options: {
    inner: DeliverySink;
    voice: VoiceReply;
    /** Told what was spoken once the reply is flushed (usage, logs); awaited. */
    spoken: (reply: SpokenReply) => Promise<void>;
  }) {
    this.#inner = options.inner;
    this.#voice = options.voice;
    this.#spoken = options.spoken;
  }

  pushMessage(chunk: string): void {
    this.#inner.pushMessage(chunk);
    this.#hear(`${chunk}\n`);
  }

  updateCurrent(content: string): void {
    this.#inner.updateCurrent(content);
    if (content.length > this.#heardLength) this.#hear(content.slice(this.#heardLength));
    this.#heardLength = Math.max(this.#heardLength, content.length);
  }

  sealCurrent(): void {
    this.#inner.sealCurrent();
    this.#hear('\n');
    this.#heardLength = 0;
  }

  setTyping(active: boolean): void {
    this.#inner.setTyping(active);
  }

  setStatus(status: string | undefined): void {
    this.#inner.setStatus(status);
  }

  discardPending(): void {
    this.#inner.discardPending();
    this.#voice.cancel();
  }

  endOfReply(): void {
    this.#inner.endOfReply();
  }

  async flush(signal?: AbortSignal): Promise<DeliveryResult> {
    const delivered = await this.#inner.flush(signal);
    const rest = this.#splitter.end();
    if (rest !== undefined) this.#voice.say(rest);
    const spoken = await this.#voice.finish(signal);
    await this.#spoken(spoken);
    return { ...delivered, messageIds: [...delivered.messageIds, ...spoken.messageIds] };
  }

  #hear(text: string): void {
    for (const sentence of this.#splitter.push(text)) this.#voice.say(sentence);
  }
}
