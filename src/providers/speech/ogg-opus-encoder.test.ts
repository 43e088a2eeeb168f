import OpusScript from 'opusscript';
import { describe, expect, it } from 'vitest';
import { SPEECH_PCM } from '../../core/speech.ts';
import { OggOpusEncoder } from './ogg-opus-encoder.ts';
import { readOggOpus } from './ogg-opus-file.ts';
import { wholeSamples } from './pcm-alignment.ts';

/** A tone whose loudness swells and fades, so the waveform has a shape. */
function swellingTone(seconds: number): Uint8Array {
  const samples = Math.round(seconds * SPEECH_PCM.sampleRate);
  const pcm = new Uint8Array(samples * 2);
  const view = new DataView(pcm.buffer);
  for (let index = 0; index < samples; index += 1) {
    const envelope = Math.sin((Math.PI * index) / samples);
    const value = 12_000 * envelope * Math.sin((2 * Math.PI * 220 * index) / SPEECH_PCM.sampleRate);
    view.setInt16(index * 2, Math.round(value), true);
  }
  return pcm;
}

describe('OggOpusEncoder', () => {
  it('writes an OGG/Opus file whose length, decoded back, is the audio pushed', () => {
    const pcm = swellingTone(1.53);
    const encoder = new OggOpusEncoder();
    // Odd-sized pushes: frames are cut by the encoder, not by the caller.
    for (let offset = 0; offset < pcm.byteLength; offset += 3_002)
      encoder.push(pcm.subarray(offset, Math.min(pcm.byteLength, offset + 3_002)));
    const voice = encoder.finish();

    expect(voice.durationSeconds).toBeCloseTo(1.53, 3);
    const file = readOggOpus(voice.ogg);
    expect(file.channels).toBe(1);
    expect(file.durationSeconds).toBeCloseTo(1.53, 2);
    const decoder = new OpusScript(48_000, 1);
    const decodedSamples = file.audioPackets.reduce(
      (sum, packet) => sum + decoder.decode(Buffer.from(packet)).byteLength / 2,
      0,
    );
    decoder.delete();
    // Whole 20 ms frames at 48 kHz: the last one padded.
    expect(decodedSamples).toBe(Math.ceil(1.53 / 0.02) * 960);
  });

  it('draws a waveform of ten points a second that swells and fades with the audio', () => {
    const encoder = new OggOpusEncoder();
    encoder.push(swellingTone(2));
    const { waveform } = encoder.finish();
    expect(waveform).toHaveLength(20);
    expect(Math.max(...waveform)).toBe(255);
    expect(waveform[0]).toBeLessThan(100);
    expect(waveform[10]).toBeGreaterThan(200);
    expect(waveform[19]).toBeLessThan(100);
  });

  it('keeps a waveform of at most 256 points for long audio', () => {
    const encoder = new OggOpusEncoder();
    encoder.push(swellingTone(40));
    const voice = encoder.finish();
    expect(voice.waveform).toHaveLength(256);
    expect(readOggOpus(voice.ogg).durationSeconds).toBeCloseTo(40, 2);
  });

  it('refuses a file that is not Ogg, and one whose checksum is wrong', () => {
    expect(() => readOggOpus(new TextEncoder().encode('RIFF....WAVE'))).toThrow(RangeError);
    const encoder = new OggOpusEncoder();
    encoder.push(swellingTone(0.2));
    const ogg = encoder.finish().ogg;
    ogg[60] = (ogg[60] ?? 0) ^ 0xff;
    expect(() => readOggOpus(ogg)).toThrow(/checksum/);
  });
});

async function* toAsync<T>(values: readonly T[]): AsyncGenerator<T> {
  for (const value of values) yield await Promise.resolve(value);
}

describe('wholeSamples', () => {
  it('joins a sample split across chunks and drops a trailing half sample', async () => {
    const chunks = [Uint8Array.of(1, 2, 3), Uint8Array.of(4), Uint8Array.of(5, 6, 7)];
    const out: number[][] = [];
    for await (const chunk of wholeSamples(toAsync(chunks))) out.push([...chunk]);
    expect(out).toEqual([
      [1, 2],
      [3, 4],
      [5, 6],
    ]);
  });
});
