/** OpenAI speech through the real SDK against the stand-in's speech routes. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ProviderError } from '../../src/core/errors.ts';
import { silentLogger } from '../../src/core/logger.ts';
import { pcmSeconds } from '../../src/core/speech.ts';
import { OpenAISpeech } from '../../src/providers/openai/openai-speech.ts';
import { RetryingSpeech } from '../../src/providers/retrying-speech.ts';
import { OggOpusEncoder } from '../../src/providers/speech/ogg-opus-encoder.ts';
import { ManualClock } from '../../src/stream/testing/manual-clock.ts';
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

/** `null`: a keyless local server. */
function speech(apiKey: string | null = 'sk-test'): OpenAISpeech {
  return new OpenAISpeech({
    apiKey: apiKey ?? undefined,
    baseUrl: standIn.openAIBaseUrl,
    logger: silentLogger,
  });
}

function voiceFile(): Uint8Array {
  const encoder = new OggOpusEncoder();
  encoder.push(standInSpeechPcm('hello'));
  return encoder.finish().ogg;
}

async function collect(chunks: AsyncIterable<Uint8Array>): Promise<Uint8Array[]> {
  const all: Uint8Array[] = [];
  for await (const chunk of chunks) all.push(chunk);
  return all;
}

describe('OpenAISpeech', () => {
  it('uploads the voice message as a multipart file and reads the transcript', async () => {
    standIn.handleSpeech({ transcribe: () => ({ type: 'text', text: '  What time is it?\n' }) });
    const audio = voiceFile();
    const transcript = await speech().transcribe(
      {
        audio,
        filename: 'voice-message.ogg',
        mediaType: 'audio/ogg',
        model: 'whisper-1',
        language: 'ja',
      },
      AbortSignal.timeout(10_000),
    );
    expect(transcript).toEqual({ text: 'What time is it?' });
    const call = standIn.speechCalls[0] as TranscriptionCall;
    expect(call).toMatchObject({
      kind: 'transcription',
      model: 'whisper-1',
      filename: 'voice-message.ogg',
      mediaType: 'audio/ogg',
      language: 'ja',
      responseFormat: 'json',
      apiKey: 'sk-test',
    });
    expect(Buffer.from(call.audio).equals(Buffer.from(audio))).toBe(true);
  });

  it('streams 24 kHz PCM in whole samples as the server sends it', async () => {
    const text = 'Good morning.';
    const chunks = await collect(
      speech().synthesize({ text, model: 'tts-1', voice: 'alloy' }, AbortSignal.timeout(10_000)),
    );
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.every((chunk) => chunk.byteLength % 2 === 0)).toBe(true);
    const bytes = chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0);
    expect(pcmSeconds(bytes)).toBeCloseTo(text.length * STAND_IN_SECONDS_PER_CHARACTER, 3);
    expect(standIn.speechCalls[0] as SpeechCall).toMatchObject({
      kind: 'speech',
      model: 'tts-1',
      voice: 'alloy',
      text,
      responseFormat: 'pcm',
    });
  });

  it('sends no key to a keyless local server', async () => {
    await collect(
      speech(null).synthesize(
        { text: 'hi', model: 'kokoro', voice: 'af_heart' },
        AbortSignal.timeout(10_000),
      ),
    );
    expect(standIn.speechCalls[0]?.apiKey).toBeUndefined();
  });

  it('classifies a refused key and a rate limit like a chat call', async () => {
    standIn.handleSpeech({ transcribe: () => ({ type: 'fail', kind: 'auth' }) });
    const refused = speech()
      .transcribe(
        { audio: voiceFile(), filename: 'a.ogg', mediaType: 'audio/ogg', model: 'whisper-1' },
        AbortSignal.timeout(10_000),
      )
      .catch((error: unknown) => error);
    expect(await refused).toMatchObject({ kind: 'auth', status: 401, provider: 'openai' });

    standIn.handleSpeech({
      speak: () => ({ type: 'fail', kind: 'rate_limit', retryAfterSeconds: 2 }),
    });
    const limited = await collect(
      speech().synthesize(
        { text: 'x', model: 'tts-1', voice: 'alloy' },
        AbortSignal.timeout(10_000),
      ),
    ).catch((error: unknown) => error);
    expect(limited).toBeInstanceOf(ProviderError);
    expect(limited).toMatchObject({ kind: 'rate_limit', retryable: true, retryAfterMs: 2_000 });
  });

  it('classifies a speech stream cut mid-way as a network failure', async () => {
    standIn.handleSpeech({
      speak: (call) => ({ type: 'audio', pcm: standInSpeechPcm(call.text), dropAfterBytes: 9_602 }),
    });
    const cut = await collect(
      speech().synthesize(
        { text: 'a long enough sentence to cut', model: 'tts-1', voice: 'alloy' },
        AbortSignal.timeout(10_000),
      ),
    ).catch((error: unknown) => error);
    expect(cut).toMatchObject({ kind: 'network' });
  });
});

describe('RetryingSpeech', () => {
  it('retries an overloaded transcription after its backoff, once, and returns the answer', async () => {
    let calls = 0;
    standIn.handleSpeech({
      transcribe: () =>
        (calls += 1) === 1 ? { type: 'fail', kind: 'overloaded' } : { type: 'text', text: 'ok' },
    });
    const clock = new ManualClock();
    const retrying = new RetryingSpeech({ speech: speech(), clock, random: () => 0.5 });
    const pending = retrying.transcribe(
      { audio: voiceFile(), filename: 'a.ogg', mediaType: 'audio/ogg', model: 'whisper-1' },
      AbortSignal.timeout(10_000),
    );
    await expect.poll(() => clock.pendingSleeps().length).toBe(1);
    await clock.advance(1_000);
    expect(await pending).toEqual({ text: 'ok' });
    expect(clock.requestedSleeps).toEqual([250]);
    expect(calls).toBe(2);
  });

  it('does not retry a refused key', async () => {
    standIn.handleSpeech({ speak: () => ({ type: 'fail', kind: 'auth' }) });
    const retrying = new RetryingSpeech({
      speech: speech(),
      clock: new ManualClock(),
      random: () => 0,
    });
    const failure = await collect(
      retrying.synthesize(
        { text: 'x', model: 'tts-1', voice: 'alloy' },
        AbortSignal.timeout(10_000),
      ),
    ).catch((error: unknown) => error);
    expect(failure).toMatchObject({ kind: 'auth' });
    expect(standIn.speechCalls).toHaveLength(1);
  });
});
