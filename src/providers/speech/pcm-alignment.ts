import { SPEECH_PCM } from '../../core/speech.ts';

/**
 * Re-cuts a byte stream into whole samples: HTTP chunks may split a 16-bit sample, and an
 * encoder reading a chunk alone would shift every later sample by a byte. A trailing odd byte
 * of a finished stream is dropped (half a sample is no sound).
 */
export async function* wholeSamples(
  chunks: AsyncIterable<Uint8Array>,
): AsyncGenerator<Uint8Array, void, undefined> {
  const frame = SPEECH_PCM.bytesPerSample * SPEECH_PCM.channels;
  let carry = new Uint8Array(0);
  for await (const chunk of chunks) {
    const joined = carry.byteLength === 0 ? chunk : concat(carry, chunk);
    const whole = joined.byteLength - (joined.byteLength % frame);
    carry = joined.slice(whole);
    if (whole > 0) yield joined.subarray(0, whole);
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const joined = new Uint8Array(a.byteLength + b.byteLength);
  joined.set(a, 0);
  joined.set(b, a.byteLength);
  return joined;
}
