import { describe, expect, it } from 'vitest';
import { pcmLevel } from '../../stream/speech/utterance-detector.ts';
import {
  channelToSpeech,
  ChannelOpus,
  SPEECH_FRAME_BYTES,
  speechToChannel,
  speechWav,
} from './voice-channel-audio.ts';

/** A 440 Hz tone of SPEECH_PCM at half scale. */
function tone(ms: number): Uint8Array {
  const samples = (24_000 * ms) / 1000;
  const pcm = new Uint8Array(samples * 2);
  const view = new DataView(pcm.buffer);
  for (let index = 0; index < samples; index += 1) {
    view.setInt16(
      index * 2,
      Math.round(16_000 * Math.sin((2 * Math.PI * 440 * index) / 24_000)),
      true,
    );
  }
  return pcm;
}

describe('voice channel audio', () => {
  it('turns speech into 48 kHz stereo and back without changing it', () => {
    const speech = tone(20);
    const back = channelToSpeech(speechToChannel(speech));
    expect(back.byteLength).toBe(speech.byteLength);
    expect(pcmLevel(back)).toBeCloseTo(pcmLevel(speech), 2);
  });

  it('encodes a 20 ms speech frame to one Opus packet that decodes to the same loudness', () => {
    const opus = new ChannelOpus();
    try {
      const speech = tone(200);
      const decoded: Uint8Array[] = [];
      for (let at = 0; at < speech.byteLength; at += SPEECH_FRAME_BYTES) {
        const packet = opus.encodeSpeech(speech.subarray(at, at + SPEECH_FRAME_BYTES));
        expect(packet.byteLength).toBeLessThan(400);
        decoded.push(opus.decodeToSpeech(packet));
      }
      expect(decoded.every((frame) => frame.byteLength === SPEECH_FRAME_BYTES)).toBe(true);
      // The codec's look-ahead delays the first frame; the rest carry the tone.
      expect(pcmLevel(decoded.at(-1) ?? new Uint8Array())).toBeGreaterThan(0.25);
    } finally {
      opus.dispose();
    }
  });

  it('wraps speech in a WAV header of 24 kHz mono 16-bit', () => {
    const wav = speechWav(tone(100));
    const view = new DataView(wav.buffer);
    expect(String.fromCharCode(...wav.subarray(0, 4))).toBe('RIFF');
    expect(view.getUint32(24, true)).toBe(24_000);
    expect(view.getUint16(22, true)).toBe(1);
    expect(view.getUint32(40, true)).toBe(wav.byteLength - 44);
  });
});
