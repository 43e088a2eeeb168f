/**
 * Decides, for one speaker in a voice channel, when an utterance began and when it ended, from
 * the loudness of the 20 ms frames heard and the time they were heard. Discord stops sending a
 * member's packets when their client's voice activity detection stops hearing them, so the end
 * is judged by time passing without voiced frames, not by silent frames alone: the caller asks
 * `endsAt()` and calls `end(now)` then (or earlier, once no more frames come).
 */

/** How an utterance is cut out of a speaker's audio. */
export interface UtteranceTiming {
  /** This long without a voiced frame ends the utterance (the member has finished speaking). */
  silenceMs: number;
  /** Less voiced audio than this in all is not speech (a cough, a click): dropped. */
  minSpeechMs: number;
  /** An utterance this long is ended and heard as it stands (a member who never pauses). */
  maxUtteranceMs: number;
  /** Voiced this long in a row: the member is speaking (talking over the bot is a barge-in). */
  speakingMs: number;
  /** A frame louder than this (RMS, 0–1 of full scale) is voiced. */
  voicedLevel: number;
}

export const DEFAULT_UTTERANCE_TIMING: UtteranceTiming = Object.freeze({
  silenceMs: 700,
  minSpeechMs: 250,
  maxUtteranceMs: 30_000,
  speakingMs: 200,
  voicedLevel: 0.01,
});

/** One frame's length: Discord's voice packets carry 20 ms of Opus each. */
export const FRAME_MS = 20;

/** What a frame told: the speaker began speaking (sustained voice), or nothing new. */
export type FrameVerdict = 'speaking' | undefined;

/** An utterance's end: heard (worth transcribing) or dropped (too little speech). */
export interface UtteranceEnd {
  kind: 'heard' | 'dropped';
  /** When the first voiced frame came. */
  startedAt: number;
  /** When the last voiced frame came: the member stopped speaking then. */
  lastVoiceAt: number;
  /** Voiced audio in all, in ms. */
  voicedMs: number;
}

export class UtteranceDetector {
  readonly #timing: UtteranceTiming;
  #startedAt: number | undefined;
  #lastVoiceAt = 0;
  #voicedMs = 0;
  #runMs = 0;
  #speaking = false;

  constructor(timing: Partial<UtteranceTiming> = {}) {
    this.#timing = { ...DEFAULT_UTTERANCE_TIMING, ...timing };
  }

  /** Whether an utterance is under way (a voiced frame came and it has not ended). */
  get active(): boolean {
    return this.#startedAt !== undefined;
  }

  /** A frame of the speaker's audio at `now`, with its loudness (RMS, 0–1). */
  frame(level: number, now: number): FrameVerdict {
    if (level < this.#timing.voicedLevel) {
      this.#runMs = 0;
      return undefined;
    }
    this.#startedAt ??= now;
    this.#lastVoiceAt = now;
    this.#voicedMs += FRAME_MS;
    this.#runMs += FRAME_MS;
    if (this.#speaking || this.#runMs < this.#timing.speakingMs) return undefined;
    this.#speaking = true;
    return 'speaking';
  }

  /** When the utterance under way ends if no voice comes before; undefined when none is. */
  endsAt(): number | undefined {
    const startedAt = this.#startedAt;
    if (startedAt === undefined) return undefined;
    return Math.min(
      this.#lastVoiceAt + this.#timing.silenceMs,
      startedAt + this.#timing.maxUtteranceMs,
    );
  }

  /** Ends the utterance if its time has come (`endsAt() <= now`), ready for the next one. */
  end(now: number): UtteranceEnd | undefined {
    const endsAt = this.endsAt();
    const startedAt = this.#startedAt;
    if (endsAt === undefined || startedAt === undefined || now < endsAt) return undefined;
    const ended: UtteranceEnd = {
      kind: this.#voicedMs >= this.#timing.minSpeechMs ? 'heard' : 'dropped',
      startedAt,
      lastVoiceAt: this.#lastVoiceAt,
      voicedMs: this.#voicedMs,
    };
    this.#startedAt = undefined;
    this.#voicedMs = 0;
    this.#runMs = 0;
    this.#speaking = false;
    return ended;
  }
}

/** The loudness of 16-bit little-endian PCM (any channel count): RMS as a share of full scale. */
export function pcmLevel(pcm: Uint8Array): number {
  const samples = Math.floor(pcm.byteLength / 2);
  if (samples === 0) return 0;
  const view = new DataView(pcm.buffer, pcm.byteOffset, samples * 2);
  let sum = 0;
  for (let index = 0; index < samples; index += 1) {
    const value = view.getInt16(index * 2, true) / 32_768;
    sum += value * value;
  }
  return Math.sqrt(sum / samples);
}
