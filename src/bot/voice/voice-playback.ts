import { Readable } from 'node:stream';
import type { AudioPlayer, VoiceConnection } from '@discordjs/voice';
import type { Logger } from '../../core/logger.ts';
import { ChannelOpus } from '../../providers/speech/voice-channel-audio.ts';
import type { SpeechQueue } from '../../stream/speech/speech-queue.ts';
import type { VoiceLibrary } from './voice-library.ts';

/**
 * How long the player keeps a reply open while its next sentence is still being written and
 * synthesized (it sends Opus silence meanwhile): the model's own stall limit.
 */
const LONGEST_WAIT_MS = 60_000;
const FRAME_MS = 20;

/**
 * The bot's voice in one call: an audio player subscribed to the connection, playing one
 * reply at a time from its SpeechQueue — each 20 ms frame encoded to Opus as the player asks
 * for it, so a stop silences the bot within a frame or two.
 */
export class VoicePlayback {
  readonly #library: VoiceLibrary;
  readonly #player: AudioPlayer;
  readonly #logger: Logger;
  #current: { queue: SpeechQueue; done: Promise<void>; audible: boolean } | undefined;

  constructor(options: { library: VoiceLibrary; connection: VoiceConnection; logger: Logger }) {
    this.#library = options.library;
    this.#logger = options.logger;
    this.#player = options.library.createAudioPlayer({
      behaviors: { maxMissedFrames: LONGEST_WAIT_MS / FRAME_MS },
    });
    this.#player.on('error', (error) => this.#logger.warn({ err: error }, 'voice playback failed'));
    options.connection.subscribe(this.#player);
  }

  /**
   * Whether a reply is being heard: its first audio has gone out and it has not ended. (A reply
   * still being thought about is not: talking then is a new utterance, not talking over the bot.)
   */
  get speaking(): boolean {
    return this.#current?.audible === true;
  }

  /**
   * Plays a reply's queue to its end (or until stopped); resolves then. `firstAudio` is told
   * when its first frame goes to the player.
   */
  play(queue: SpeechQueue, firstAudio?: () => void): Promise<void> {
    this.stop();
    const { AudioPlayerStatus, StreamType, createAudioResource } = this.#library;
    const stream = opusStream(queue, () => {
      if (this.#current?.queue === queue) this.#current.audible = true;
      firstAudio?.();
    });
    const resource = createAudioResource(stream, { inputType: StreamType.Opus });
    const done = new Promise<void>((resolve) => {
      const settle = (): void => {
        this.#player.off(AudioPlayerStatus.Idle, settle);
        stream.destroy();
        if (this.#current?.queue === queue) this.#current = undefined;
        resolve();
      };
      this.#player.on(AudioPlayerStatus.Idle, settle);
    });
    this.#current = { queue, done, audible: false };
    this.#player.play(resource);
    return done;
  }

  /** Silences the bot at once: the reply playing is dropped (a stop, a barge-in, leaving). */
  stop(): void {
    const current = this.#current;
    if (current === undefined) return;
    current.queue.cancel();
    this.#player.stop(true);
  }
}

/** The queue's frames as Opus packets, pulled as the player reads (20 ms each). */
function opusStream(queue: SpeechQueue, firstAudio?: () => void): Readable {
  const opus = new ChannelOpus();
  let first = true;
  const stream = new Readable({
    objectMode: true,
    highWaterMark: 4,
    read() {
      pump();
    },
    destroy(error, callback) {
      queue.onAudio = undefined;
      opus.dispose();
      callback(error);
    },
  });
  const pump = (): void => {
    for (;;) {
      if (stream.destroyed) return;
      const frame = queue.read();
      if (frame === 'waiting') {
        queue.onAudio = () => {
          queue.onAudio = undefined;
          pump();
        };
        return;
      }
      if (frame === 'done') {
        stream.push(null);
        return;
      }
      if (first) {
        first = false;
        firstAudio?.();
      }
      if (!stream.push(opus.encodeSpeech(frame))) return;
    }
  };
  return stream;
}
