/**
 * The sentences of a reply spoken live, in order and without gaps: each sentence is synthesized
 * as soon as it is said (two requests at a time, running ahead of playback by a few sentences),
 * and the player reads the audio back in fixed frames as it arrives — the first sentence starts
 * playing with its first chunk, and the next one is ready before the current one ends. A stop
 * cancels the synthesis and drops what is not played.
 */

/** What the queue needs: the synthesis of one sentence, as audio chunks of any size. */
export interface SpeechQueueOptions {
  synthesize(sentence: string, signal: AbortSignal): AsyncIterable<Uint8Array>;
  /** Bytes of one frame the player reads (20 ms of the synthesized PCM). */
  frameBytes: number;
  /** Sentences synthesized ahead of the one playing (default 2): bounds memory on long replies. */
  ahead?: number;
  /**
   * Syntheses at once (default 2): the next sentence's synthesis does not wait for the current
   * one's to end, so a speech server's time to first audio is hidden behind what is playing.
   */
  parallel?: number;
  /** The reply's signal: aborting it cancels the queue. */
  signal: AbortSignal;
  /** A sentence could not be synthesized; nothing after it is spoken. */
  onError?(error: unknown): void;
}

/** What the player gets: a frame, nothing yet (audio is on its way), or the end. */
export type SpeechRead = Uint8Array | 'waiting' | 'done';

interface QueuedSentence {
  text: string;
  chunks: Uint8Array[];
  /** Bytes already taken from chunks[0]. */
  offset: number;
  synthesized: boolean;
}

export class SpeechQueue {
  readonly #options: SpeechQueueOptions;
  readonly #cancel = new AbortController();
  readonly #signal: AbortSignal;
  readonly #sentences: QueuedSentence[] = [];
  /** Index of the next sentence to synthesize. */
  #next = 0;
  #inFlight = 0;
  #ended = false;
  #failed = false;
  #characters = 0;
  #bytes = 0;
  /** Told when audio arrives (the player may have found the queue waiting). */
  onAudio: (() => void) | undefined;

  constructor(options: SpeechQueueOptions) {
    this.#options = options;
    this.#signal = AbortSignal.any([options.signal, this.#cancel.signal]);
  }

  /** Characters sent to synthesis, and bytes of audio it returned. */
  get spoken(): { characters: number; bytes: number } {
    return { characters: this.#characters, bytes: this.#bytes };
  }

  /** Queues a sentence; its synthesis starts at once when the synthesis is idle. */
  say(sentence: string): void {
    if (this.#ended || this.#signal.aborted || this.#failed) return;
    this.#sentences.push({ text: sentence, chunks: [], offset: 0, synthesized: false });
    this.#pump();
  }

  /** No more sentences: the queue is done once what is queued has played. */
  end(): void {
    this.#ended = true;
    this.onAudio?.();
  }

  /** Drops everything not played yet and stops the synthesis (a stop, a barge-in). */
  cancel(): void {
    this.#ended = true;
    this.#sentences.length = 0;
    this.#next = 0;
    this.#cancel.abort();
  }

  /** The next frame to play (the last one of a sentence padded with silence). */
  read(): SpeechRead {
    if (this.#signal.aborted) return 'done';
    const current = this.#sentences[0];
    if (current === undefined) return this.#ended || this.#failed ? 'done' : 'waiting';
    const frame = takeFrame(current, this.#options.frameBytes);
    if (frame !== undefined) return frame;
    if (!current.synthesized) return 'waiting';
    this.#sentences.shift();
    this.#next -= 1;
    this.#pump();
    return this.read();
  }

  /** Starts the syntheses due: sentences within reach of playback, a few at a time. */
  #pump(): void {
    const ahead = this.#options.ahead ?? 2;
    const parallel = this.#options.parallel ?? 2;
    // The sentence playing is index 0: synthesis runs at most `ahead` sentences past it.
    while (!this.#signal.aborted && !this.#failed && this.#inFlight < parallel) {
      const sentence = this.#sentences[this.#next];
      if (sentence === undefined || this.#next > ahead) return;
      this.#next += 1;
      this.#inFlight += 1;
      void this.#synthesize(sentence).finally(() => {
        this.#inFlight -= 1;
        this.#pump();
      });
    }
  }

  async #synthesize(sentence: QueuedSentence): Promise<void> {
    this.#characters += sentence.text.length;
    try {
      for await (const chunk of this.#options.synthesize(sentence.text, this.#signal)) {
        if (this.#signal.aborted) return;
        sentence.chunks.push(chunk);
        this.#bytes += chunk.byteLength;
        this.onAudio?.();
      }
    } catch (error) {
      if (this.#signal.aborted || this.#failed) return;
      this.#failed = true;
      // What was not synthesized of this sentence, and every later one, is not spoken.
      const at = this.#sentences.indexOf(sentence);
      if (at >= 0) this.#sentences.splice(at + 1);
      this.#next = Math.min(this.#next, this.#sentences.length);
      this.#options.onError?.(error);
    } finally {
      sentence.synthesized = true;
      this.onAudio?.();
    }
  }
}

/** One frame from a sentence's chunks; the last, short one only once it is wholly synthesized. */
function takeFrame(sentence: QueuedSentence, frameBytes: number): Uint8Array | undefined {
  let available = -sentence.offset;
  for (const chunk of sentence.chunks) available += chunk.byteLength;
  if (available <= 0 || (available < frameBytes && !sentence.synthesized)) return undefined;
  const frame = new Uint8Array(frameBytes);
  let filled = 0;
  while (filled < frameBytes) {
    const chunk = sentence.chunks[0];
    if (chunk === undefined) break;
    const taken = Math.min(frameBytes - filled, chunk.byteLength - sentence.offset);
    frame.set(chunk.subarray(sentence.offset, sentence.offset + taken), filled);
    filled += taken;
    sentence.offset += taken;
    if (sentence.offset === chunk.byteLength) {
      sentence.chunks.shift();
      sentence.offset = 0;
    }
  }
  return frame;
}
