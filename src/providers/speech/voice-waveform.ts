/**
 * The waveform Discord shows on a voice message: at most 256 bytes, each the loudness of one
 * slice of the recording (0 silent … 255 the loudest slice), sent base64 encoded.
 */
export const WAVEFORM_MAX_POINTS = 256;
/** Slices per second for short recordings (Discord's own clients draw about ten). */
const POINTS_PER_SECOND = 10;

/**
 * Loudness of `levels` (root mean square per 100 ms, in any unit) resampled to at most 256
 * points and scaled so the loudest point is 255. Silence gives zeros, never an empty waveform.
 */
export function voiceWaveform(levels: readonly number[], durationSeconds: number): Uint8Array {
  const count = Math.max(
    1,
    Math.min(WAVEFORM_MAX_POINTS, Math.ceil(durationSeconds * POINTS_PER_SECOND), levels.length),
  );
  const points = new Float64Array(count);
  for (let point = 0; point < count; point += 1) {
    const from = Math.floor((point * levels.length) / count);
    const to = Math.max(from + 1, Math.floor(((point + 1) * levels.length) / count));
    let peak = 0;
    for (let index = from; index < to && index < levels.length; index += 1)
      peak = Math.max(peak, levels[index] ?? 0);
    points[point] = peak;
  }
  const loudest = Math.max(...points);
  return Uint8Array.from(points, (value) =>
    loudest > 0 ? Math.round((value / loudest) * 255) : 0,
  );
}
