/**
 * Real speech for the speech stand-ins and the members' voice messages: short sentences rendered
 * by espeak-ng and kept as 24 kHz mono 16-bit WAV in tests/fixtures/speech (how they were made is
 * in the README there). Looked up by the exact text spoken.
 */
import { readFileSync } from 'node:fs';

const FIXTURES = new URL('../../fixtures/speech/', import.meta.url);

const RECORDINGS: Readonly<Record<string, string>> = {
  'What is the weather like today?': 'what-is-the-weather-like-today.wav',
  'It is sunny and warm.': 'it-is-sunny-and-warm.wav',
  '晴れです。': 'hare-desu.wav',
};

const cache = new Map<string, Uint8Array>();

/** The raw PCM (24 kHz, 16-bit little-endian, mono) of a WAV file's data chunk. */
export function wavPcm(wav: Uint8Array): Uint8Array {
  const view = new DataView(wav.buffer, wav.byteOffset, wav.byteLength);
  const tag = (at: number) => String.fromCharCode(...wav.subarray(at, at + 4));
  if (tag(0) !== 'RIFF' || tag(8) !== 'WAVE') throw new Error('not a WAV file');
  for (let at = 12; at + 8 <= wav.byteLength; at += 8 + view.getUint32(at + 4, true)) {
    if (tag(at) === 'fmt ') {
      const channels = view.getUint16(at + 10, true);
      const rate = view.getUint32(at + 12, true);
      const bits = view.getUint16(at + 22, true);
      if (channels !== 1 || rate !== 24_000 || bits !== 16) {
        throw new Error(`expected 24 kHz mono 16-bit, got ${rate} Hz ${channels}ch ${bits}-bit`);
      }
    }
    if (tag(at) === 'data') return wav.slice(at + 8, at + 8 + view.getUint32(at + 4, true));
  }
  throw new Error('WAV file without a data chunk');
}

/** The recorded speech of a text, when there is a recording of exactly that text. */
export function recordedSpeechPcm(text: string): Uint8Array | undefined {
  const file = RECORDINGS[text];
  if (file === undefined) return undefined;
  let pcm = cache.get(file);
  if (pcm === undefined) {
    pcm = wavPcm(readFileSync(new URL(file, FIXTURES)));
    cache.set(file, pcm);
  }
  return pcm.slice();
}

/** The texts that have a recording. */
export const RECORDED_TEXTS = Object.keys(RECORDINGS);
