import OpusScript from 'opusscript';
import { SPEECH_PCM } from '../../core/speech.ts';

/**
 * Audio as a Discord voice channel carries it: Opus packets of 20 ms at 48 kHz, two channels.
 * Speech providers speak and hear SPEECH_PCM (24 kHz, one channel): the conversions between
 * them live here, beside the Opus codec (libopus in WebAssembly, as for voice messages).
 */
export const CHANNEL_AUDIO = Object.freeze({ sampleRate: 48_000, channels: 2, frameMs: 20 });

/** Samples per channel in one 20 ms frame at 48 kHz. */
const CHANNEL_FRAME_SAMPLES = (CHANNEL_AUDIO.sampleRate * CHANNEL_AUDIO.frameMs) / 1000;
/** Bytes of one 20 ms frame of SPEECH_PCM. */
export const SPEECH_FRAME_BYTES =
  ((SPEECH_PCM.sampleRate * CHANNEL_AUDIO.frameMs) / 1000) * SPEECH_PCM.bytesPerSample;
/** Enough for clear speech; Discord's default channel bitrate is 64 kbit/s. */
const SPEAKING_BITRATE = 48_000;

/**
 * One Opus encoder and decoder for a voice channel's audio. The WebAssembly memory is freed by
 * `dispose` (a garbage-collected wrapper would keep it until the process ends).
 */
export class ChannelOpus {
  readonly #opus: OpusScript;
  #disposed = false;

  constructor() {
    this.#opus = new OpusScript(
      CHANNEL_AUDIO.sampleRate,
      CHANNEL_AUDIO.channels,
      OpusScript.Application.AUDIO,
    );
    this.#opus.setBitrate(SPEAKING_BITRATE);
  }

  /** One 20 ms frame of SPEECH_PCM, spoken into the channel: an Opus packet. */
  encodeSpeech(frame: Uint8Array): Buffer {
    return this.#opus.encode(Buffer.from(speechToChannel(frame)), CHANNEL_FRAME_SAMPLES);
  }

  /** One Opus packet heard in the channel, as SPEECH_PCM (for loudness and transcription). */
  decodeToSpeech(packet: Uint8Array): Uint8Array {
    const pcm = this.#opus.decode(Buffer.from(packet));
    return channelToSpeech(new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength));
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#opus.delete();
  }
}

/** SPEECH_PCM → 48 kHz stereo: each sample is doubled in time (linearly) and in channels. */
export function speechToChannel(speech: Uint8Array): Uint8Array {
  const samples = Math.floor(speech.byteLength / 2);
  const input = new DataView(speech.buffer, speech.byteOffset, samples * 2);
  const output = new Uint8Array(samples * 8);
  const view = new DataView(output.buffer);
  for (let index = 0; index < samples; index += 1) {
    const value = input.getInt16(index * 2, true);
    const next = index + 1 < samples ? input.getInt16(index * 2 + 2, true) : value;
    const between = Math.round((value + next) / 2);
    view.setInt16(index * 8, value, true);
    view.setInt16(index * 8 + 2, value, true);
    view.setInt16(index * 8 + 4, between, true);
    view.setInt16(index * 8 + 6, between, true);
  }
  return output;
}

/** 48 kHz stereo → SPEECH_PCM: the two channels mixed, every pair of samples averaged. */
export function channelToSpeech(channel: Uint8Array): Uint8Array {
  const pairs = Math.floor(channel.byteLength / 8);
  const input = new DataView(channel.buffer, channel.byteOffset, pairs * 8);
  const output = new Uint8Array(pairs * 2);
  const view = new DataView(output.buffer);
  for (let index = 0; index < pairs; index += 1) {
    const sum =
      input.getInt16(index * 8, true) +
      input.getInt16(index * 8 + 2, true) +
      input.getInt16(index * 8 + 4, true) +
      input.getInt16(index * 8 + 6, true);
    view.setInt16(index * 2, Math.round(sum / 4), true);
  }
  return output;
}

/** SPEECH_PCM as a WAV file: what every transcription server takes. */
export function speechWav(pcm: Uint8Array): Uint8Array {
  const header = new DataView(new ArrayBuffer(44));
  const ascii = (at: number, text: string): void => {
    for (let index = 0; index < text.length; index += 1) {
      header.setUint8(at + index, text.charCodeAt(index));
    }
  };
  const byteRate = SPEECH_PCM.sampleRate * SPEECH_PCM.channels * SPEECH_PCM.bytesPerSample;
  ascii(0, 'RIFF');
  header.setUint32(4, 36 + pcm.byteLength, true);
  ascii(8, 'WAVE');
  ascii(12, 'fmt ');
  header.setUint32(16, 16, true);
  header.setUint16(20, 1, true);
  header.setUint16(22, SPEECH_PCM.channels, true);
  header.setUint32(24, SPEECH_PCM.sampleRate, true);
  header.setUint32(28, byteRate, true);
  header.setUint16(32, SPEECH_PCM.channels * SPEECH_PCM.bytesPerSample, true);
  header.setUint16(34, SPEECH_PCM.bytesPerSample * 8, true);
  ascii(36, 'data');
  header.setUint32(40, pcm.byteLength, true);
  const wav = new Uint8Array(44 + pcm.byteLength);
  wav.set(new Uint8Array(header.buffer), 0);
  wav.set(pcm, 44);
  return wav;
}
