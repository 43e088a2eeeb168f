/**
 * OpenAI's speech routes as the SDK and OpenAI-compatible local servers (speaches, Kokoro) use
 * them: POST /v1/audio/transcriptions, a multipart form (file, model, language,
 * response_format) answered `{"text": …}`; POST /v1/audio/speech, JSON answered with the audio
 * itself, raw 24 kHz 16-bit mono PCM for `response_format: "pcm"`, chunked as it is generated.
 * Errors are the chat routes' error bodies.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { recordedSpeechPcm } from './recorded-speech.ts';
import type { ScriptFailureKind } from './script.ts';
import { hangUp } from './stream-writer.ts';
import { vendorError } from './vendor-errors.ts';

export interface TranscriptionCall {
  kind: 'transcription';
  model: string;
  filename: string;
  mediaType: string;
  audio: Uint8Array;
  language: string | undefined;
  responseFormat: string | undefined;
  apiKey: string | undefined;
}

export interface SpeechCall {
  kind: 'speech';
  model: string;
  voice: string;
  text: string;
  responseFormat: string | undefined;
  apiKey: string | undefined;
}

export type SpeechFailure = {
  type: 'fail';
  kind: Exclude<ScriptFailureKind, 'content_filter'>;
  retryAfterSeconds?: number;
};

export type TranscriptionAnswer = { type: 'text'; text: string } | SpeechFailure;

export type SpeechAnswer =
  | {
      type: 'audio';
      pcm: Uint8Array;
      /** Bytes per HTTP chunk (odd sizes split samples, as real servers do). Default 4801. */
      chunkBytes?: number;
      /** Real milliseconds before the first chunk (a local server's time to first audio). */
      firstChunkDelayMs?: number;
      /** Hang up after this many bytes. */
      dropAfterBytes?: number;
    }
  | SpeechFailure;

export interface SpeechHandlers {
  transcribe(call: TranscriptionCall): TranscriptionAnswer | Promise<TranscriptionAnswer>;
  speak(call: SpeechCall): SpeechAnswer | Promise<SpeechAnswer>;
}

/** Seconds of stand-in speech per character of text (about a person's pace). */
export const STAND_IN_SECONDS_PER_CHARACTER = 0.06;

/**
 * The stand-in's speech for a text: real recorded speech (espeak-ng, tests/fixtures/speech) for
 * the texts recorded, else the synthetic tone of {@link toneSpeechPcm}.
 */
export function standInSpeechPcm(text: string): Uint8Array {
  return recordedSpeechPcm(text) ?? toneSpeechPcm(text);
}

/**
 * Deterministic "speech" for a text: per character 60 ms of a vowel-like tone whose pitch
 * follows the character, with a short fade between, so lengths and waveforms are checkable.
 */
export function toneSpeechPcm(text: string): Uint8Array {
  const rate = 24_000;
  const perCharacter = Math.round(STAND_IN_SECONDS_PER_CHARACTER * rate);
  const characters = [...text];
  const pcm = new Uint8Array(characters.length * perCharacter * 2);
  const view = new DataView(pcm.buffer);
  characters.forEach((character, position) => {
    const code = character.codePointAt(0) ?? 32;
    const pitch = /\s/.test(character) ? 0 : 110 + (code % 40) * 5;
    for (let index = 0; index < perCharacter; index += 1) {
      const fade = Math.min(1, index / 120, (perCharacter - index) / 120);
      const time = index / rate;
      const value =
        pitch === 0
          ? 0
          : 9_000 *
            fade *
            (Math.sin(2 * Math.PI * pitch * time) + 0.4 * Math.sin(6 * Math.PI * pitch * time));
      view.setInt16((position * perCharacter + index) * 2, Math.round(value), true);
    }
  });
  return pcm;
}

/** The default handlers: a fixed transcript, and stand-in speech for any text. */
export function defaultSpeechHandlers(transcript = 'hello from a voice message'): SpeechHandlers {
  return {
    transcribe: () => ({ type: 'text', text: transcript }),
    speak: (call) => ({ type: 'audio', pcm: standInSpeechPcm(call.text) }),
  };
}

/** Which speech route a path is, if any. */
export function speechRouteOf(pathname: string): 'transcription' | 'speech' | undefined {
  if (/^\/openai\/v1\/audio\/transcriptions$/.test(pathname)) return 'transcription';
  if (/^\/openai\/v1\/audio\/speech$/.test(pathname)) return 'speech';
  return undefined;
}

export async function readTranscriptionCall(
  request: IncomingMessage,
  body: Buffer,
  apiKey: string | undefined,
): Promise<TranscriptionCall> {
  const form = await new Request('http://stand-in/', {
    method: 'POST',
    headers: { 'content-type': request.headers['content-type'] ?? '' },
    body,
  }).formData();
  const file = form.get('file');
  if (!(file instanceof Blob)) throw new Error('multipart form without a file');
  const text = (name: string): string | undefined => {
    const value = form.get(name);
    return typeof value === 'string' ? value : undefined;
  };
  return {
    kind: 'transcription',
    model: text('model') ?? '',
    filename: file instanceof File ? file.name : 'blob',
    mediaType: file.type,
    audio: new Uint8Array(await file.arrayBuffer()),
    language: text('language'),
    responseFormat: text('response_format'),
    apiKey,
  };
}

export function readSpeechCall(body: Buffer, apiKey: string | undefined): SpeechCall {
  const json = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
  const text = (name: string): string | undefined =>
    typeof json[name] === 'string' ? json[name] : undefined;
  return {
    kind: 'speech',
    model: text('model') ?? '',
    voice: text('voice') ?? '',
    text: text('input') ?? '',
    responseFormat: text('response_format'),
    apiKey,
  };
}

export function writeFailure(
  response: ServerResponse,
  failure: SpeechFailure,
  model: string,
): void {
  const error = vendorError('openai', failure.kind, {
    model,
    retryAfterSeconds: failure.retryAfterSeconds,
  });
  response.writeHead(error.status, error.headers).end(error.body);
}

export function writeTranscription(
  response: ServerResponse,
  answer: TranscriptionAnswer,
  model: string,
): void {
  if (answer.type === 'fail') {
    writeFailure(response, answer, model);
    return;
  }
  response
    .writeHead(200, { 'content-type': 'application/json' })
    .end(JSON.stringify({ text: answer.text }));
}

export async function writeSpeech(
  response: ServerResponse,
  answer: SpeechAnswer,
  model: string,
): Promise<void> {
  if (answer.type === 'fail') {
    writeFailure(response, answer, model);
    return;
  }
  if (answer.firstChunkDelayMs !== undefined) await delay(answer.firstChunkDelayMs);
  response.writeHead(200, { 'content-type': 'audio/pcm', 'transfer-encoding': 'chunked' });
  response.flushHeaders();
  const size = answer.chunkBytes ?? 4_801;
  for (let offset = 0; offset < answer.pcm.byteLength; offset += size) {
    if (answer.dropAfterBytes !== undefined && offset >= answer.dropAfterBytes) {
      hangUp(response);
      return;
    }
    if (response.destroyed) return;
    response.write(answer.pcm.subarray(offset, offset + size));
    // Each chunk on its own turn, so the client reads the stream as it grows.
    await new Promise((resolve) => setImmediate(resolve));
  }
  response.end();
}
