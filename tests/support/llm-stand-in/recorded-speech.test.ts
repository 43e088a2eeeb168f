import { describe, expect, it } from 'vitest';
import { pcmSeconds } from '../../../src/core/speech.ts';
import { RECORDED_TEXTS, recordedSpeechPcm, wavPcm } from './recorded-speech.ts';
import { standInSpeechPcm, toneSpeechPcm } from './speech-wire.ts';

/** Root mean square of 16-bit samples, 0..32767. */
function rms(pcm: Uint8Array): number {
  const samples = new Int16Array(pcm.buffer, pcm.byteOffset, pcm.byteLength / 2);
  return Math.sqrt(samples.reduce((sum, sample) => sum + sample * sample, 0) / samples.length);
}

describe('recorded speech fixtures', () => {
  it.each(RECORDED_TEXTS)('%s is a second or two of audible 24 kHz speech', (text) => {
    const pcm = recordedSpeechPcm(text);
    expect(pcm).toBeDefined();
    const seconds = pcmSeconds(pcm?.byteLength ?? 0);
    expect(seconds).toBeGreaterThan(0.5);
    expect(seconds).toBeLessThan(3);
    expect(rms(pcm ?? new Uint8Array(2))).toBeGreaterThan(500);
    // The stand-in speaks the recording for this text, not the tone.
    expect(Buffer.from(standInSpeechPcm(text)).equals(Buffer.from(pcm ?? []))).toBe(true);
  });

  it('falls back to the tone for texts without a recording', () => {
    expect(recordedSpeechPcm('hello')).toBeUndefined();
    expect(Buffer.from(standInSpeechPcm('hello')).equals(Buffer.from(toneSpeechPcm('hello')))).toBe(
      true,
    );
  });

  it('refuses a WAV file that is not 24 kHz mono 16-bit', () => {
    const header = Buffer.alloc(44);
    header.write('RIFF', 0);
    header.writeUInt32LE(36, 4);
    header.write('WAVEfmt ', 8);
    header.writeUInt32LE(16, 16);
    header.writeUInt16LE(1, 20);
    header.writeUInt16LE(1, 22);
    header.writeUInt32LE(22_050, 24);
    header.writeUInt16LE(16, 34);
    header.write('data', 36);
    expect(() => wavPcm(header)).toThrow(/22050 Hz/);
  });
});
