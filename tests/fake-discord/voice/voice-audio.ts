/**
 * The members' side of a voice channel's audio, for the loopback voice server: their speech
 * (SPEECH_PCM, 24 kHz mono) encoded as their Discord client would (Opus, 48 kHz stereo, 20 ms
 * frames), and the bot's Opus packets decoded back to speech for checks.
 */
import OpusScript from 'opusscript';

const FRAME_SAMPLES_48K = 960;
const SPEECH_FRAME_BYTES = 960;
/** Opus's three-byte silence frame: clients send five of them when they stop speaking. */
export const OPUS_SILENCE = Buffer.from([0xf8, 0xff, 0xfe]);

/** Splits speech into 20 ms frames and encodes each as a member's client does. */
export function encodeMemberSpeech(speech: Uint8Array): Buffer[] {
  const opus = new OpusScript(48_000, 2, OpusScript.Application.VOIP);
  try {
    const packets: Buffer[] = [];
    for (let at = 0; at < speech.byteLength; at += SPEECH_FRAME_BYTES) {
      const frame = new Uint8Array(SPEECH_FRAME_BYTES);
      frame.set(speech.subarray(at, at + SPEECH_FRAME_BYTES));
      packets.push(opus.encode(Buffer.from(upmix(frame)), FRAME_SAMPLES_48K));
    }
    return packets;
  } finally {
    opus.delete();
  }
}

/** Decodes the bot's Opus packets (in order) back to SPEECH_PCM; silence frames decode to silence. */
export function decodeBotSpeech(packets: readonly Uint8Array[]): Uint8Array {
  const opus = new OpusScript(48_000, 2, OpusScript.Application.AUDIO);
  try {
    const frames = packets.map((packet) => {
      const pcm = opus.decode(Buffer.from(packet));
      return downmix(new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength));
    });
    const speech = new Uint8Array(frames.reduce((sum, frame) => sum + frame.byteLength, 0));
    let at = 0;
    for (const frame of frames) {
      speech.set(frame, at);
      at += frame.byteLength;
    }
    return speech;
  } finally {
    opus.delete();
  }
}

function upmix(speech: Uint8Array): Uint8Array {
  const input = new DataView(speech.buffer, speech.byteOffset, speech.byteLength);
  const output = new Uint8Array(speech.byteLength * 4);
  const view = new DataView(output.buffer);
  for (let index = 0; index < speech.byteLength / 2; index += 1) {
    const value = input.getInt16(index * 2, true);
    for (let copy = 0; copy < 4; copy += 1) view.setInt16(index * 8 + copy * 2, value, true);
  }
  return output;
}

function downmix(channel: Uint8Array): Uint8Array {
  const input = new DataView(channel.buffer, channel.byteOffset, channel.byteLength);
  const output = new Uint8Array(channel.byteLength / 4);
  const view = new DataView(output.buffer);
  for (let index = 0; index < output.byteLength / 2; index += 1) {
    const sum = input.getInt16(index * 8, true) + input.getInt16(index * 8 + 4, true);
    view.setInt16(index * 2, Math.round(sum / 2), true);
  }
  return output;
}

/** RMS of 16-bit PCM as a share of full scale. */
export function speechLevel(pcm: Uint8Array): number {
  const view = new DataView(pcm.buffer, pcm.byteOffset, pcm.byteLength);
  const samples = Math.floor(pcm.byteLength / 2);
  let sum = 0;
  for (let index = 0; index < samples; index += 1)
    sum += (view.getInt16(index * 2, true) / 32_768) ** 2;
  return samples === 0 ? 0 : Math.sqrt(sum / samples);
}
