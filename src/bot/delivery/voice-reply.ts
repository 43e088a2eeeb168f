import type { Logger } from '../../core/logger.ts';
import type { SpeechService } from '../../core/speech.ts';
import { OggOpusEncoder } from '../../providers/speech/ogg-opus-encoder.ts';
import type { ChannelWriter } from './delivery-port.ts';
import type { AllowedMentions } from './message-target.ts';

/**
 * Discord plays long voice messages fine, but a member skims a reply by its parts: a reply
 * longer than this is cut, at a sentence boundary, into several voice messages.
 */
export const VOICE_MESSAGE_MAX_SECONDS = 60;
/**
 * A reply is spoken up to about five minutes (15 characters a second): a very long answer
 * is read, not heard, and speaking all of it would cost what a short story's audiobook does.
 */
export const SPOKEN_CHARACTERS_PER_REPLY = 4_500;

/** What a spoken reply came to. */
export interface SpokenReply {
  messageIds: string[];
  /** Characters sent to the speech provider, and seconds of audio it returned (for usage). */
  characters: number;
  seconds: number;
  /** Why the reply is not (wholly) spoken: a speech or a delivery failure. */
  failure: unknown;
}

export interface VoiceReplyOptions {
  writer: ChannelWriter;
  speech: SpeechService;
  /** The voice of the persona speaking. */
  voice: string;
  /** The member message the first voice message replies to. */
  replyTo: string;
  allowedMentions: AllowedMentions;
  logger: Logger;
  /** The turn's signal: a stop ends the synthesis and posts nothing more. */
  signal: AbortSignal;
  maxSecondsPerMessage?: number;
  /** Default SPOKEN_CHARACTERS_PER_REPLY. */
  maxCharacters?: number;
  /**
   * Posted (small, beside the text) when the speech failed: the member asked for a voice and
   * should know why none came. Already in the member's language.
   */
  failureNote?: string;
}

/**
 * Speaks a reply sentence by sentence while it streams: each sentence is synthesized as soon as
 * it is complete (one at a time, in order), its audio encoded to OGG/Opus as it arrives, and a
 * voice message posted through the channel's writer whenever the next sentence would make the
 * current one too long, and at the end.
 */
export class VoiceReply {
  readonly #options: VoiceReplyOptions;
  readonly #cancel = new AbortController();
  readonly #signal: AbortSignal;
  readonly #queue: string[] = [];
  readonly #result: SpokenReply = { messageIds: [], characters: 0, seconds: 0, failure: undefined };
  #encoder: OggOpusEncoder | undefined;
  #working: Promise<void> = Promise.resolve();
  #running = false;
  #queuedCharacters = 0;

  constructor(options: VoiceReplyOptions) {
    this.#options = options;
    this.#signal = AbortSignal.any([options.signal, this.#cancel.signal]);
  }

  /**
   * Queues a sentence; synthesis starts at once when nothing is being spoken. Past the reply's
   * character budget the rest is not spoken (the text has it all).
   */
  say(sentence: string): void {
    if (this.#signal.aborted || this.#result.failure !== undefined) return;
    const budget = this.#options.maxCharacters ?? SPOKEN_CHARACTERS_PER_REPLY;
    // Once a sentence does not fit, none after it is spoken: a gap would mislead.
    if (this.#queuedCharacters + sentence.length > budget) this.#queuedCharacters = Infinity;
    if (this.#queuedCharacters === Infinity) return;
    this.#queuedCharacters += sentence.length;
    this.#queue.push(sentence);
    if (!this.#running) {
      this.#running = true;
      this.#working = this.#drain();
    }
  }

  /** Drops what is not spoken yet and stops the synthesis (a stop). */
  cancel(): void {
    this.#queue.length = 0;
    this.#cancel.abort();
  }

  /** Speaks what is queued, posts the last voice message, and answers what was spoken. */
  async finish(signal?: AbortSignal): Promise<SpokenReply> {
    const onAbort = (): void => this.cancel();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await this.#working;
      if (this.#encoder !== undefined && !this.#signal.aborted) await this.#post();
      if (this.#result.failure !== undefined && !this.#signal.aborted) await this.#noteFailure();
      return this.#result;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      this.#encoder?.dispose();
    }
  }

  async #drain(): Promise<void> {
    try {
      await this.#speakQueued();
    } finally {
      // In the same step as the queue was found empty: a sentence said after it starts anew.
      this.#running = false;
    }
  }

  async #speakQueued(): Promise<void> {
    for (
      let sentence = this.#queue.shift();
      sentence !== undefined;
      sentence = this.#queue.shift()
    ) {
      if (this.#signal.aborted || this.#result.failure !== undefined) return;
      const limit = this.#options.maxSecondsPerMessage ?? VOICE_MESSAGE_MAX_SECONDS;
      if (this.#encoder !== undefined && this.#encoder.durationSeconds >= limit) await this.#post();
      try {
        await this.#speak(sentence);
      } catch (error) {
        if (this.#signal.aborted) return;
        this.#result.failure = error;
        this.#options.logger.warn({ err: error }, 'could not speak the reply');
      }
    }
  }

  async #speak(sentence: string): Promise<void> {
    const { speech, voice } = this.#options;
    this.#encoder ??= new OggOpusEncoder();
    const encoder = this.#encoder;
    const before = encoder.durationSeconds;
    this.#result.characters += sentence.length;
    const audio = speech.textToSpeech.synthesize(
      { text: sentence, model: speech.speechModel, voice },
      this.#signal,
    );
    for await (const pcm of audio) encoder.push(pcm);
    this.#result.seconds += encoder.durationSeconds - before;
  }

  async #noteFailure(): Promise<void> {
    const note = this.#options.failureNote;
    if (note === undefined) return;
    await this.#options.writer.post(
      {
        content: `-# ${note}`,
        allowedMentions: this.#options.allowedMentions,
        replyTo: this.#options.replyTo,
      },
      this.#signal,
    );
  }

  /** Posts the recording so far as one voice message, and starts the next. */
  async #post(): Promise<void> {
    const encoder = this.#encoder;
    this.#encoder = undefined;
    if (encoder === undefined || encoder.durationSeconds === 0) {
      encoder?.dispose();
      return;
    }
    const recording = encoder.finish();
    const first = this.#result.messageIds.length === 0;
    const outcome = await this.#options.writer.post(
      {
        content: '',
        allowedMentions: this.#options.allowedMentions,
        ...(first ? { replyTo: this.#options.replyTo } : {}),
        voice: {
          ogg: recording.ogg,
          durationSeconds: recording.durationSeconds,
          waveform: Buffer.from(recording.waveform).toString('base64'),
        },
      },
      this.#signal,
    );
    if (outcome.kind === 'written') this.#result.messageIds.push(outcome.value);
    else if (outcome.kind === 'failed') this.#result.failure ??= outcome.failure;
  }
}
