import type { AudioReceiveStream, VoiceReceiver } from '@discordjs/voice';
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import { ChannelOpus } from '../../providers/speech/voice-channel-audio.ts';
import {
  pcmLevel,
  UtteranceDetector,
  type UtteranceEnd,
  type UtteranceTiming,
} from '../../stream/speech/utterance-detector.ts';
import type { VoiceLibrary } from './voice-library.ts';

/** An utterance a member finished: their speech (SPEECH_PCM) and when they stopped. */
export interface HeardUtterance {
  userId: string;
  speech: Uint8Array;
  end: UtteranceEnd;
}

export interface VoiceListenerOptions {
  library: VoiceLibrary;
  receiver: VoiceReceiver;
  clock: Clock;
  logger: Logger;
  timing?: Partial<UtteranceTiming>;
  /** Other bots are not listened to (their audio is never decoded). */
  isBot(userId: string): boolean;
  /** A member has been speaking for a moment (talking over the bot is a barge-in). */
  onSpeaking(userId: string): void;
  onUtterance(utterance: HeardUtterance): void;
}

/** One member being listened to: their Opus decoder, detector and the speech so far. */
interface Speaker {
  userId: string;
  stream: AudioReceiveStream;
  opus: ChannelOpus;
  detector: UtteranceDetector;
  frames: Uint8Array[];
  timer: ReturnType<typeof setTimeout> | undefined;
}

/**
 * Hears each member of a call apart: from their first packet, their Opus is decoded frame by
 * frame, each frame's loudness goes to their UtteranceDetector, and when they have been silent
 * long enough their utterance is handed on. A receive stream the library destroys (a packet it
 * could not decrypt, as happens around DAVE transitions) ends that speaker's listening; the
 * utterance so far is kept, and the next packet subscribes them again.
 */
export class VoiceListener {
  readonly #options: VoiceListenerOptions;
  readonly #speakers = new Map<string, Speaker>();
  readonly #onStart = (userId: string): void => this.#listen(userId);
  #closed = false;

  constructor(options: VoiceListenerOptions) {
    this.#options = options;
    options.receiver.speaking.on('start', this.#onStart);
  }

  close(): void {
    this.#closed = true;
    this.#options.receiver.speaking.off('start', this.#onStart);
    for (const speaker of this.#speakers.values()) this.#drop(speaker);
  }

  /** Stops listening to a member (they left the call): their decoder's memory is freed. */
  forget(userId: string): void {
    const speaker = this.#speakers.get(userId);
    if (speaker !== undefined) this.#drop(speaker);
  }

  #listen(userId: string): void {
    if (this.#closed || this.#speakers.has(userId) || this.#options.isBot(userId)) return;
    const { EndBehaviorType } = this.#options.library;
    const stream = this.#options.receiver.subscribe(userId, {
      end: { behavior: EndBehaviorType.Manual },
    });
    const speaker: Speaker = {
      userId,
      stream,
      opus: new ChannelOpus(),
      detector: new UtteranceDetector(this.#options.timing),
      frames: [],
      timer: undefined,
    };
    this.#speakers.set(userId, speaker);
    stream.on('data', (packet: Buffer) => this.#packet(speaker, packet));
    stream.on('error', (error) => {
      this.#options.logger.debug({ err: error, userId }, 'voice receive stream failed');
    });
    stream.on('close', () => {
      if (this.#speakers.get(userId) !== speaker) return;
      this.#finish(speaker, true);
      this.#drop(speaker);
    });
  }

  #packet(speaker: Speaker, packet: Buffer): void {
    let pcm: Uint8Array;
    try {
      pcm = speaker.opus.decodeToSpeech(packet);
    } catch (error) {
      this.#options.logger.debug(
        { err: error, userId: speaker.userId },
        'undecodable voice packet',
      );
      return;
    }
    const now = this.#options.clock.now();
    const verdict = speaker.detector.frame(pcmLevel(pcm), now);
    if (speaker.detector.active) speaker.frames.push(pcm);
    if (verdict === 'speaking') this.#options.onSpeaking(speaker.userId);
    this.#schedule(speaker);
  }

  /** Waits for the speaker's silence: the detector says when their utterance would end. */
  #schedule(speaker: Speaker): void {
    if (speaker.timer !== undefined) clearTimeout(speaker.timer);
    const endsAt = speaker.detector.endsAt();
    if (endsAt === undefined) return;
    speaker.timer = setTimeout(
      () => this.#finish(speaker, false),
      Math.max(0, endsAt - this.#options.clock.now()),
    );
  }

  /** Ends the speaker's utterance if its time has come (or at once, `now`). */
  #finish(speaker: Speaker, now: boolean): void {
    speaker.timer = undefined;
    const at = now ? Number.POSITIVE_INFINITY : this.#options.clock.now();
    const end = speaker.detector.end(at);
    if (end === undefined) {
      this.#schedule(speaker);
      return;
    }
    const frames = speaker.frames;
    speaker.frames = [];
    if (end.kind === 'dropped') return;
    this.#options.onUtterance({ userId: speaker.userId, speech: joinFrames(frames), end });
  }

  #drop(speaker: Speaker): void {
    if (speaker.timer !== undefined) clearTimeout(speaker.timer);
    this.#speakers.delete(speaker.userId);
    speaker.stream.destroy();
    speaker.opus.dispose();
  }
}

function joinFrames(frames: readonly Uint8Array[]): Uint8Array {
  const joined = new Uint8Array(frames.reduce((sum, frame) => sum + frame.byteLength, 0));
  let at = 0;
  for (const frame of frames) {
    joined.set(frame, at);
    at += frame.byteLength;
  }
  return joined;
}
