/** Gemini speech through the real @google/genai SDK against the stand-in's Gemini routes. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { pcmSeconds } from '../../src/core/speech.ts';
import { GeminiSpeech } from '../../src/providers/google/gemini-speech.ts';
import { OggOpusEncoder } from '../../src/providers/speech/ogg-opus-encoder.ts';
import { LlmStandIn } from '../support/llm-stand-in/llm-stand-in.ts';
import {
  defaultSpeechHandlers,
  STAND_IN_SECONDS_PER_CHARACTER,
  standInSpeechPcm,
  type SpeechCall,
  type TranscriptionCall,
} from '../support/llm-stand-in/speech-wire.ts';

let standIn: LlmStandIn;
beforeAll(async () => {
  standIn = await LlmStandIn.start();
});
afterAll(async () => {
  await standIn.close();
});
beforeEach(() => {
  standIn.handleSpeech(defaultSpeechHandlers());
  standIn.speechCalls.length = 0;
});

function speech(): GeminiSpeech {
  return new GeminiSpeech({ apiKey: 'gemini-test-key', baseUrl: standIn.geminiBaseUrl });
}

async function collect(chunks: AsyncIterable<Uint8Array>): Promise<Uint8Array[]> {
  const all: Uint8Array[] = [];
  for await (const chunk of chunks) all.push(chunk);
  return all;
}

describe('GeminiSpeech', () => {
  it('sends the recording inline and reads the transcript from the answer', async () => {
    standIn.handleSpeech({ transcribe: () => ({ type: 'text', text: ' おはようございます。\n' }) });
    const encoder = new OggOpusEncoder();
    encoder.push(standInSpeechPcm('ohayou'));
    const audio = encoder.finish().ogg;
    const transcript = await speech().transcribe(
      { audio, filename: 'voice-message.ogg', mediaType: 'audio/ogg', model: 'gemini-2.5-flash' },
      AbortSignal.timeout(10_000),
    );
    expect(transcript).toEqual({ text: 'おはようございます。' });
    const call = standIn.speechCalls[0] as TranscriptionCall;
    expect(call).toMatchObject({
      kind: 'transcription',
      model: 'gemini-2.5-flash',
      mediaType: 'audio/ogg',
      apiKey: 'gemini-test-key',
    });
    expect(Buffer.from(call.audio).equals(Buffer.from(audio))).toBe(true);
  });

  it('streams the speech of a TTS model in whole samples, in the voice asked for', async () => {
    const text = 'Good evening, everyone.';
    const chunks = await collect(
      speech().synthesize(
        { text, model: 'gemini-2.5-flash-preview-tts', voice: 'Kore' },
        AbortSignal.timeout(10_000),
      ),
    );
    expect(chunks.length).toBeGreaterThan(1);
    const bytes = chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0);
    expect(pcmSeconds(bytes)).toBeCloseTo(text.length * STAND_IN_SECONDS_PER_CHARACTER, 3);
    expect(standIn.speechCalls[0] as SpeechCall).toMatchObject({
      kind: 'speech',
      model: 'gemini-2.5-flash-preview-tts',
      voice: 'Kore',
      text,
    });
  });

  it('classifies a refused key and an exhausted quota like a chat call', async () => {
    standIn.handleSpeech({ transcribe: () => ({ type: 'fail', kind: 'auth' }) });
    const refused = await speech()
      .transcribe(
        {
          audio: new Uint8Array(8),
          filename: 'a.ogg',
          mediaType: 'audio/ogg',
          model: 'gemini-2.5-flash',
        },
        AbortSignal.timeout(10_000),
      )
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ kind: 'auth', provider: 'google' });

    standIn.handleSpeech({
      speak: () => ({ type: 'fail', kind: 'rate_limit', retryAfterSeconds: 3 }),
    });
    const limited = await collect(
      speech().synthesize(
        { text: 'x', model: 'gemini-2.5-flash-preview-tts', voice: 'Kore' },
        AbortSignal.timeout(10_000),
      ),
    ).catch((error: unknown) => error);
    expect(limited).toMatchObject({ kind: 'rate_limit', retryable: true });
  });
});
