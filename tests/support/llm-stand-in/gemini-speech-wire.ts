/**
 * Gemini's speech as @google/genai calls it: audio understanding is a `:generateContent` with
 * the recording as an `inlineData` part, answered with one GenerateContentResponse whose text is
 * the transcript; speech generation is a `:streamGenerateContent?alt=sse` whose
 * generationConfig asks for the AUDIO modality, answered with events carrying
 * `inlineData: { mimeType: 'audio/L16;codec=pcm;rate=24000', data }` parts. The calls land in
 * the same `speechCalls` and handlers as OpenAI's.
 */
import type { ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { asArray, asObject } from './recorded-request.ts';
import type {
  SpeechAnswer,
  SpeechCall,
  SpeechFailure,
  TranscriptionAnswer,
  TranscriptionCall,
} from './speech-wire.ts';
import { hangUp } from './stream-writer.ts';
import { vendorError } from './vendor-errors.ts';

const GEMINI_METHOD = /^\/google\/[^/]+\/models\/([^:/]+):(generateContent|streamGenerateContent)$/;
/** Bytes of PCM per event: Gemini sends audio in parts of a few hundred milliseconds. */
const EVENT_BYTES = 9_600;

/** The Gemini speech call a request is, or undefined when it is a chat call. */
export function geminiSpeechCallOf(
  pathname: string,
  body: unknown,
  apiKey: string | undefined,
): TranscriptionCall | SpeechCall | undefined {
  const method = GEMINI_METHOD.exec(pathname);
  if (method === null) return undefined;
  const model = decodeURIComponent(method[1] ?? '');
  const request = asObject(body);
  const parts = asArray(asObject(asArray(request['contents'])[0])['parts']).map(asObject);
  const config = asObject(request['generationConfig']);
  if (method[2] === 'streamGenerateContent') {
    if (!asArray(config['responseModalities']).includes('AUDIO')) return undefined;
    const voice = asObject(
      asObject(asObject(config['speechConfig'])['voiceConfig'])['prebuiltVoiceConfig'],
    )['voiceName'];
    return {
      kind: 'speech',
      model,
      voice: typeof voice === 'string' ? voice : '',
      text: parts.map((part) => (typeof part['text'] === 'string' ? part['text'] : '')).join(''),
      responseFormat: 'pcm',
      apiKey,
    };
  }
  const audio = parts.map((part) => asObject(part['inlineData'])).find((data) => 'data' in data);
  if (audio === undefined) return undefined;
  return {
    kind: 'transcription',
    model,
    filename: '',
    mediaType: typeof audio['mimeType'] === 'string' ? audio['mimeType'] : '',
    audio: new Uint8Array(Buffer.from(String(audio['data']), 'base64')),
    language: undefined,
    responseFormat: undefined,
    apiKey,
  };
}

function writeGeminiFailure(response: ServerResponse, failure: SpeechFailure, model: string): void {
  const error = vendorError('google', failure.kind, {
    model,
    retryAfterSeconds: failure.retryAfterSeconds,
  });
  response.writeHead(error.status, error.headers).end(error.body);
}

export function writeGeminiTranscription(
  response: ServerResponse,
  answer: TranscriptionAnswer,
  model: string,
): void {
  if (answer.type === 'fail') {
    writeGeminiFailure(response, answer, model);
    return;
  }
  response.writeHead(200, { 'content-type': 'application/json' }).end(
    JSON.stringify({
      candidates: [
        {
          content: { role: 'model', parts: [{ text: answer.text }] },
          finishReason: 'STOP',
          index: 0,
        },
      ],
      usageMetadata: { promptTokenCount: 40, candidatesTokenCount: 10, totalTokenCount: 50 },
      modelVersion: model,
    }),
  );
}

export async function writeGeminiSpeech(
  response: ServerResponse,
  answer: SpeechAnswer,
  model: string,
): Promise<void> {
  if (answer.type === 'fail') {
    writeGeminiFailure(response, answer, model);
    return;
  }
  if (answer.firstChunkDelayMs !== undefined) await delay(answer.firstChunkDelayMs);
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  response.flushHeaders();
  const event = (parts: unknown[], finishReason?: string): string =>
    `data: ${JSON.stringify({
      candidates: [
        { content: { role: 'model', parts }, index: 0, ...(finishReason ? { finishReason } : {}) },
      ],
      modelVersion: model,
    })}\r\n\r\n`;
  for (let offset = 0; offset < answer.pcm.byteLength; offset += EVENT_BYTES) {
    if (answer.dropAfterBytes !== undefined && offset >= answer.dropAfterBytes) {
      hangUp(response);
      return;
    }
    if (response.destroyed) return;
    const data = Buffer.from(answer.pcm.subarray(offset, offset + EVENT_BYTES)).toString('base64');
    response.write(event([{ inlineData: { mimeType: 'audio/L16;codec=pcm;rate=24000', data } }]));
    await new Promise((resolve) => setImmediate(resolve));
  }
  response.end(event([], 'STOP'));
}
