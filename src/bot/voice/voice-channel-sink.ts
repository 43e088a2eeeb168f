import type { DeliveryResult, DeliverySink } from '../../stream/reply/delivery-sink.ts';
import { SentenceSplitter } from '../../stream/speech/sentence-splitter.ts';
import type { SpeechQueue } from '../../stream/speech/speech-queue.ts';
import { SPOKEN_CHARACTERS_PER_REPLY } from '../delivery/voice-reply.ts';

const NOTHING_WRITTEN: DeliveryResult = { messageIds: [], failure: undefined };

/**
 * A reply in a voice channel: the model's text is heard as it streams (hearText), and each
 * sentence goes to the speech queue as soon as it is complete — the first is spoken while the
 * model still writes — and its text to the text chat's sink when the
 * exchange is posted there too. Flushing waits until the reply has been spoken — the turn holds
 * the channel meanwhile, so the next member's question waits for the bot to finish or be
 * stopped — and reports the characters spoken.
 */
export class VoiceChannelSink implements DeliverySink {
  readonly #text: DeliverySink | undefined;
  readonly #queue: SpeechQueue;
  readonly #played: Promise<void>;
  readonly #spoken: (characters: number) => Promise<void>;
  readonly #splitter = new SentenceSplitter();
  #characters = 0;

  constructor(options: {
    text: DeliverySink | undefined;
    queue: SpeechQueue;
    /** Resolves when the queue has been played to its end or stopped. */
    played: Promise<void>;
    spoken: (characters: number) => Promise<void>;
  }) {
    this.#text = options.text;
    this.#queue = options.queue;
    this.#played = options.played;
    this.#spoken = options.spoken;
  }

  /** Heard as the model writes it: a sentence is spoken once complete, not once its paragraph is. */
  hearText(text: string): void {
    for (const sentence of this.#splitter.push(text)) this.#say(sentence);
  }

  pushMessage(chunk: string): void {
    this.#text?.pushMessage(chunk);
  }

  updateCurrent(content: string): void {
    this.#text?.updateCurrent(content);
  }

  sealCurrent(): void {
    this.#text?.sealCurrent();
  }

  setTyping(active: boolean): void {
    this.#text?.setTyping(active);
  }

  setStatus(status: string | undefined): void {
    this.#text?.setStatus(status);
  }

  discardPending(): void {
    this.#text?.discardPending();
    this.#queue.cancel();
  }

  endOfReply(): void {
    this.#text?.endOfReply();
  }

  async flush(signal?: AbortSignal): Promise<DeliveryResult> {
    const rest = this.#splitter.end();
    if (rest !== undefined) this.#say(rest);
    this.#queue.end();
    const delivered = (await this.#text?.flush(signal)) ?? NOTHING_WRITTEN;
    // Not bound by the flush's deadline: a reply takes as long to say as it takes; a stop ends it.
    await this.#played;
    await this.#spoken(this.#queue.spoken.characters);
    return delivered;
  }

  #say(sentence: string): void {
    // Past about five minutes of speech the rest is left to the text chat (no gap: none of it).
    if (this.#characters + sentence.length > SPOKEN_CHARACTERS_PER_REPLY) {
      this.#characters = Infinity;
      return;
    }
    this.#characters += sentence.length;
    this.#queue.say(sentence);
  }
}
