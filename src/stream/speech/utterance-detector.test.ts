import { describe, expect, it } from 'vitest';
import { FRAME_MS, pcmLevel, UtteranceDetector } from './utterance-detector.ts';

const LOUD = 0.2;
const QUIET = 0.001;

/** Feeds `ms` of frames of one level from `from`; answers the time after them. */
function speak(detector: UtteranceDetector, from: number, ms: number, level = LOUD): number {
  for (let at = from; at < from + ms; at += FRAME_MS) detector.frame(level, at);
  return from + ms;
}

describe('UtteranceDetector', () => {
  it('ends an utterance once the speaker has been silent for the silence time', () => {
    const detector = new UtteranceDetector({ silenceMs: 700 });
    const stopped = speak(detector, 1_000, 1_200);
    const lastVoice = stopped - FRAME_MS;
    expect(detector.endsAt()).toBe(lastVoice + 700);
    expect(detector.end(lastVoice + 699)).toBeUndefined();
    expect(detector.end(lastVoice + 700)).toEqual({
      kind: 'heard',
      startedAt: 1_000,
      lastVoiceAt: lastVoice,
      voicedMs: 1_200,
    });
    expect(detector.active).toBe(false);
  });

  it('keeps an utterance going through a pause shorter than the silence time', () => {
    const detector = new UtteranceDetector({ silenceMs: 700 });
    const paused = speak(detector, 0, 400);
    speak(detector, paused, 300, QUIET);
    const resumed = speak(detector, paused + 300, 400);
    expect(detector.end(resumed)).toBeUndefined();
    expect(detector.end(resumed + 700)?.voicedMs).toBe(800);
  });

  it('drops a sound too short to be speech', () => {
    const detector = new UtteranceDetector({ minSpeechMs: 250 });
    speak(detector, 0, 100);
    expect(detector.end(10_000)?.kind).toBe('dropped');
  });

  it('says the member is speaking once voice lasts the speaking time, once per utterance', () => {
    const detector = new UtteranceDetector({ speakingMs: 200 });
    const verdicts = Array.from({ length: 20 }, (_, index) =>
      detector.frame(LOUD, index * FRAME_MS),
    );
    expect(verdicts.filter((verdict) => verdict === 'speaking')).toHaveLength(1);
    expect(verdicts.indexOf('speaking')).toBe(9);
  });

  it('ends a member who never pauses at the longest utterance', () => {
    const detector = new UtteranceDetector({ maxUtteranceMs: 5_000 });
    speak(detector, 0, 4_000);
    expect(detector.endsAt()).toBe(4_000 - FRAME_MS + 700);
    speak(detector, 4_000, 2_000);
    expect(detector.endsAt()).toBe(5_000);
  });

  it('measures loudness as RMS of full scale', () => {
    const pcm = new Uint8Array(8);
    const view = new DataView(pcm.buffer);
    for (let index = 0; index < 4; index += 1)
      view.setInt16(index * 2, index % 2 ? -16_384 : 16_384, true);
    expect(pcmLevel(pcm)).toBeCloseTo(0.5, 5);
    expect(pcmLevel(new Uint8Array(0))).toBe(0);
  });
});
